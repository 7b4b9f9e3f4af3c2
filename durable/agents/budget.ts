/**
 * Hierarchical budgets at the edge (SPEC §7D, issue 24): the kernel's walk
 * (src/core/agents/limits/budget.ts) over the stored tree. Each level of a handle's chain is
 * its budget (the run's agent's, a child's own as spawned; nothing is carved: the walk reads
 * every ancestor's budget live, which bounds a child as `min(own, parent remaining)` would), its
 * tree spend (its own turns, tokens and tool calls plus every descendant's, read from what
 * each handle checkpoints per turn) and when it started (the run's or the child's creation,
 * so time spent suspended counts, as on the kernel's clock).
 *
 * The walk runs before every model call of every handle of the tree and before every step
 * of a child, so what one child spent stops its siblings and its parents at their next call.
 */
import type { Budget } from "../../src/core/agents/types";
import type { RunState } from "../../src/core/loop/run-loop";
import type { Spent } from "../../src/core/agents/tree/handle";
import { addUsage } from "../../src/core/providers/model";
import {
  describeExhausted,
  exhausted,
  type BudgetLevel,
  type Exhausted,
} from "../../src/core/agents/limits/budget";
import { zeroUsage, type HandleRow } from "../storage/handle-store";
import { rootHandleOf, type Slots, type TreeContext } from "./tree";

/** The budget of a handle: the run's agent's at the top, a child's own (stored at spawn). */
export function budgetOf(tree: TreeContext, handle: string): Budget {
  if (handle === rootHandleOf(tree.run)) {
    return tree.deps.agents.get(tree.run.agent)?.budget ?? {};
  }
  const row = tree.handles.handle(tree.run.runId, handle);
  return row ? row.budget : {};
}

/**
 * `handle` and its ancestors up to the run's agent, nearest first, as the walk reads them.
 * `live`: the state of the loop that asks, fresher than its last checkpoint.
 */
export function chainOf(tree: TreeContext, handle: string, live?: RunState): BudgetLevel[] {
  const { deps, run } = tree;
  const top = rootHandleOf(run);
  const rows = tree.handles.handles(run.runId);
  const ownOf = (id: string): Spent => {
    if (live && id === handle) {
      return { turns: live.turns, usage: live.usage, toolCalls: live.toolCalls.length };
    }
    if (id === top) {
      const stored = deps.store.run(run.runId) ?? run;
      const toolCalls = deps.store.toolCalls(run.runId).length;
      return { turns: stored.turns, usage: stored.usage, toolCalls };
    }
    const row = rows.find((r) => r.handle === id);
    return row ? spentOf(row) : { turns: 0, usage: zeroUsage(), toolCalls: 0 };
  };
  const chain: BudgetLevel[] = [];
  for (let id = handle; id.startsWith(top); id = id.slice(0, id.lastIndexOf("/"))) {
    const spent: Spent = { turns: 0, usage: zeroUsage(), toolCalls: 0 };
    for (const one of [id, ...rows.map((r) => r.handle).filter((h) => h.startsWith(`${id}/`))]) {
      const own = ownOf(one);
      spent.turns += own.turns;
      spent.toolCalls += own.toolCalls;
      addUsage(spent.usage, own.usage);
    }
    const row = rows.find((r) => r.handle === id);
    chain.push({
      id,
      budget: id === top ? budgetOf(tree, id) : row ? row.budget : {},
      tree: spent,
      startedAt: id === top ? run.createdAt : (row?.createdAt ?? deps.now()),
    });
  }
  return chain;
}

/** The first spent limit along the handle's chain (the handle itself first), or undefined. */
export function spentLimit(
  tree: TreeContext,
  handle: string,
  live?: RunState,
): Exhausted | undefined {
  return exhausted(chainOf(tree, handle, live), tree.deps.now());
}

/**
 * The loop's `limitBefore` for one handle: the name of a spent limit stops it. The last stop
 * is kept with who spent it, so the handle's recorded result can say so.
 */
export function liveLimit(tree: TreeContext, handle: string) {
  let last: Exhausted | undefined;
  return {
    limitBefore: (state: RunState) => {
      last = spentLimit(tree, handle, state);
      return last?.limit;
    },
    /** "budget exhausted: maxTokens of root/coordinator.1 (160 of 100)", once it stopped. */
    described: () => (last ? describeExhausted(last) : undefined),
  };
}

/**
 * Gate 2 at the edge (`maxConcurrent`): at most `max` of a parent's children run at once, the
 * others wait in call order, and a child that settles or suspends hands its slot on. Unlike
 * the kernel's turn gate it needs no abort race: a cancelled drive aborts the running
 * children, and each queued one then stops at its first step.
 */
export function childSlots(max: number | undefined): Slots {
  let free = max ?? Number.POSITIVE_INFINITY;
  const queue: Array<() => void> = [];
  return async (work) => {
    if (free > 0) {
      free -= 1;
    } else {
      await new Promise<void>((resolve) => queue.push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = queue.shift();
      if (next) {
        next(); // the slot passes straight on
      } else {
        free += 1;
      }
    }
  };
}

function spentOf(row: HandleRow): Spent {
  return {
    turns: row.turns,
    usage: row.usage,
    toolCalls: row.toolCalls.length,
  };
}
