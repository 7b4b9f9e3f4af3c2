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
import { zeroUsage } from "../storage/handle-store";
import { admittedCalls } from "../../src/core/agents/limits/admission";
import { rootHandleOf, type Slots, type TreeContext } from "./tree";

/** The budget of a handle: the run's agent's at the top, a child's own (stored at spawn). */
export function budgetOf(tree: TreeContext, handle: string): Budget {
  if (handle === rootHandleOf(tree.run)) {
    return tree.deps.agents.get(tree.run.agent)?.budget ?? {};
  }
  return tree.ledger().entry(handle)?.budget ?? {};
}

/**
 * `handle` and its ancestors up to the run's agent, nearest first, as the walk reads them.
 * `live`: the state of the loop that asks, fresher than its last checkpoint. O(depth): the
 * roll-ups come from the drive's ledger (ledger.ts), the run's own totals from two one-row reads.
 */
export function chainOf(tree: TreeContext, handle: string, live?: RunState): BudgetLevel[] {
  const { deps, run } = tree;
  const top = rootHandleOf(run);
  const ledger = tree.ledger();
  const fresh: Spent | undefined = live
    ? { turns: live.turns, usage: live.usage, toolCalls: live.toolCalls.length }
    : undefined;
  const topOwn = (): Spent => {
    if (fresh && handle === top) {
      return fresh;
    }
    const stored = deps.store.run(run.runId) ?? run;
    return {
      turns: stored.turns,
      usage: stored.usage,
      toolCalls: deps.store.toolCallCount(run.runId),
    };
  };
  // What the asking child spent since its last checkpoint counts for every level above it too.
  const stored = ledger.entry(handle)?.own;
  const since = fresh && handle !== top && stored ? minus(fresh, stored) : undefined;
  const chain: BudgetLevel[] = [];
  for (let id = handle; id.startsWith(top); id = id.slice(0, id.lastIndexOf("/"))) {
    const entry = ledger.entry(id);
    const own = id === top ? topOwn() : id === handle && fresh ? fresh : (entry?.own ?? zero());
    const spent = plus(own, entry?.below ?? zero());
    chain.push({
      id,
      budget: id === top ? budgetOf(tree, id) : (entry?.budget ?? {}),
      tree: id !== handle && since ? plus(spent, since) : spent,
      startedAt: id === top ? run.createdAt : (entry?.createdAt ?? deps.now()),
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
 * The loop's `limitBefore` for one handle: the walk, then the admission (issue 37: a model
 * call under a token or turn pool starts only once the pool can pay for it, the calls in
 * flight counted), then the walk again if it had to wait. The last stop is kept with who
 * spent it, so the handle's recorded result can say so. `spent` goes into the handle's
 * checkpoint (after the ledger has the call's spend), `release` where its step ends.
 */
export function liveLimit(tree: TreeContext, handle: string, agent: string) {
  let last: Exhausted | undefined;
  let state: RunState | undefined;
  const calls = admittedCalls(tree.admission, {
    agent,
    levels: () => chainOf(tree, handle, state),
    stop: () => {
      last = spentLimit(tree, handle, state);
      return last?.limit;
    },
    walkAlways: true,
    signal: () => tree.signal,
  });
  return {
    limitBefore: (live: RunState) => {
      state = live;
      return calls.limitBefore(live);
    },
    spent: calls.spent,
    release: calls.release,
    /** "budget exhausted: maxTokens of root/coordinator.1 (160 of 100)", once it stopped. */
    described: () => (last ? describeExhausted(last) : undefined),
  };
}

const zero = (): Spent => ({ turns: 0, usage: zeroUsage(), toolCalls: 0 });

function plus(a: Spent, b: Spent): Spent {
  const usage = { ...a.usage };
  addUsage(usage, b.usage);
  return { turns: a.turns + b.turns, toolCalls: a.toolCalls + b.toolCalls, usage };
}

function minus(a: Spent, b: Spent): Spent {
  return {
    turns: a.turns - b.turns,
    toolCalls: a.toolCalls - b.toolCalls,
    usage: {
      promptTokens: a.usage.promptTokens - b.usage.promptTokens,
      completionTokens: a.usage.completionTokens - b.usage.completionTokens,
      totalTokens: a.usage.totalTokens - b.usage.totalTokens,
    },
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
