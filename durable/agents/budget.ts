/**
 * Hierarchical budgets at the edge (SPEC §7D, issue 24): the kernel's walk
 * (src/core/agents/limits/budget.ts) over the stored tree. Each level of a handle's chain is
 * its effective budget (the run's agent's own at the top, a child's carved at spawn), its
 * tree spend (its own turns, tokens and tool calls plus every descendant's, read from what
 * each handle checkpoints per turn) and when it started (the run's or the child's creation,
 * so time spent suspended counts, as on the kernel's clock).
 *
 * The walk runs before every model call of every handle of the tree and before every step
 * of a child, so what one child spent stops its siblings and its parents at their next call.
 */
import type { Usage } from "../../src/core/types";
import type { Budget } from "../../src/core/agents/types";
import type { RunState } from "../../src/core/loop/run-loop";
import {
  carve,
  describeExhausted,
  exhausted,
  type BudgetLevel,
  type Exhausted,
} from "../../src/core/agents/limits/budget";
import { zeroUsage, type HandleRow } from "./handle-store";
import { rootHandleOf, type TreeContext } from "./tree";

interface Own {
  turns: number;
  usage: Usage;
  toolCalls: number;
}

/** The effective budget of a handle: the run's agent's at the top, the carved one of a child. */
export function budgetOf(tree: TreeContext, handle: string): Budget {
  if (handle === rootHandleOf(tree.run)) {
    return tree.deps.agents.get(tree.run.agent)?.budget ?? {};
  }
  const row = tree.handles.handle(tree.run.run_id, handle);
  return row ? (JSON.parse(row.budget) as Budget) : {};
}

/**
 * `handle` and its ancestors up to the run's agent, nearest first, as the walk reads them.
 * `live`: the state of the loop that asks, fresher than its last checkpoint.
 */
export function chainOf(tree: TreeContext, handle: string, live?: RunState): BudgetLevel[] {
  const top = rootHandleOf(tree.run);
  const rows = tree.handles.handles(tree.run.run_id);
  const ownOf = (id: string): Own => {
    if (live && id === handle) {
      return { turns: live.turns, usage: live.usage, toolCalls: live.toolCalls.length };
    }
    if (id === top) {
      const run = tree.deps.store.run(tree.run.run_id) ?? tree.run;
      const usage = JSON.parse(run.usage) as Usage;
      return { turns: run.turns, usage, toolCalls: tree.deps.store.toolCalls(run.run_id).length };
    }
    const row = rows.find((r) => r.handle === id);
    return row ? ownOfRow(row) : { turns: 0, usage: zeroUsage(), toolCalls: 0 };
  };
  const chain: BudgetLevel[] = [];
  for (let id = handle; id.startsWith(top); id = id.slice(0, id.lastIndexOf("/"))) {
    const below = rows.filter((r) => r.handle.startsWith(`${id}/`)).map((r) => r.handle);
    const spent = [id, ...below].map(ownOf);
    const row = rows.find((r) => r.handle === id);
    chain.push({
      id,
      budget: budgetOf(tree, id),
      tree: {
        turns: sum(spent.map((s) => s.turns)),
        toolCalls: sum(spent.map((s) => s.toolCalls)),
        usage: {
          promptTokens: sum(spent.map((s) => s.usage.promptTokens)),
          completionTokens: sum(spent.map((s) => s.usage.completionTokens)),
          totalTokens: sum(spent.map((s) => s.usage.totalTokens)),
        },
      },
      startedAt: id === top ? tree.run.created_at : (row?.created_at ?? tree.deps.now()),
    });
    if (id === top) {
      break;
    }
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

/** A new child's budget: `min(own, parent remaining)`, as the kernel carves it at spawn. */
export function carveFor(tree: TreeContext, parent: string, own: Budget | undefined): Budget {
  return carve(own ?? {}, chainOf(tree, parent), tree.deps.now());
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

function ownOfRow(row: HandleRow): Own {
  return {
    turns: row.turns,
    usage: JSON.parse(row.usage) as Usage,
    toolCalls: (JSON.parse(row.tool_calls) as unknown[]).length,
  };
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
