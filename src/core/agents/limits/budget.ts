/**
 * Hierarchical budgets (SPEC §7D): a carve at spawn, a live walk of the ancestor chain before
 * every turn and spawn (a carve alone misses what siblings spent since), and the usage
 * roll-up that is the ledger both read.
 */
import type { Usage } from "../../types";
import type { Budget, BudgetLimit } from "../types";
import type { HandleRecord, Spent } from "../tree/handle";
import { addUsage } from "../../providers/model";

const POOLS = ["maxTurns", "maxTokens", "maxToolCalls"] as const;

/**
 * What the budget walk reads of one handle of a chain: the kernel's records, and the edge's
 * stored handles (durable/agents/budget.ts) built into the same shape.
 */
export type BudgetLevel = Pick<HandleRecord, "id" | "budget" | "tree" | "startedAt">;
type Pool = (typeof POOLS)[number];

function used(spent: Spent, pool: Pool): number {
  switch (pool) {
    case "maxTurns":
      return spent.turns;
    case "maxTokens":
      return spent.usage.totalTokens;
    case "maxToolCalls":
      return spent.toolCalls;
    default: {
      const never: never = pool;
      return never;
    }
  }
}

/** What is left of `pool` for a handle: the least over it and its ancestors (undefined: unlimited). */
export function remaining(chain: BudgetLevel[], pool: Pool): number | undefined {
  let least: number | undefined;
  for (const h of chain) {
    const max = h.budget[pool];
    if (max !== undefined) {
      const left = max - used(h.tree, pool);
      least = least === undefined ? left : Math.min(least, left);
    }
  }
  return least;
}

const minDefined = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

/**
 * A child's effective budget: `min(own, parent remaining)` for the pools and the wall time;
 * `maxDepth` shrinks by one level; `maxChildren`, `maxConcurrent`, `maxChildrenPerTurn` and
 * `maxDescendants` are the child's own.
 */
export function carve(requested: Budget, parentChain: BudgetLevel[], now: number): Budget {
  const out: Budget = { ...requested };
  for (const pool of POOLS) {
    const left = remaining(parentChain, pool);
    const value = minDefined(requested[pool], left === undefined ? undefined : Math.max(0, left));
    if (value !== undefined) {
      out[pool] = value;
    }
  }
  const wall = wallLeft(parentChain, now);
  const maxWallMs = minDefined(requested.maxWallMs, wall);
  if (maxWallMs !== undefined) {
    out.maxWallMs = maxWallMs;
  }
  const parent = parentChain[0];
  if (parent?.budget.maxDepth !== undefined) {
    out.maxDepth = minDefined(requested.maxDepth, Math.max(0, parent.budget.maxDepth - 1));
  }
  return out;
}

function wallLeft(chain: BudgetLevel[], now: number): number | undefined {
  let least: number | undefined;
  for (const h of chain) {
    const max = h.budget.maxWallMs;
    if (max !== undefined) {
      const left = h.startedAt === undefined ? max : max - (now - h.startedAt);
      least = minDefined(least, Math.max(0, left));
    }
  }
  return least;
}

export interface Exhausted {
  limit: BudgetLimit;
  /** The handle whose budget is spent. */
  of: string;
  used: number;
  max: number;
}

/** The first spent limit along the chain (the handle itself first), or undefined. */
export function exhausted(chain: BudgetLevel[], now: number): Exhausted | undefined {
  for (const h of chain) {
    for (const pool of POOLS) {
      const max = h.budget[pool];
      if (max !== undefined && used(h.tree, pool) >= max) {
        return { limit: pool, of: h.id, used: used(h.tree, pool), max };
      }
    }
    const wall = h.budget.maxWallMs;
    if (wall !== undefined && h.startedAt !== undefined && now - h.startedAt >= wall) {
      return { limit: "maxWallMs", of: h.id, used: now - h.startedAt, max: wall };
    }
  }
  return undefined;
}

/** Whether a parent may spawn one more child: `maxChildren` of the parent, `maxDepth` along the chain. */
export function spawnRefusal(parentChain: HandleRecord[]): Exhausted | undefined {
  const parent = parentChain[0];
  if (!parent) {
    return undefined;
  }
  const maxChildren = parent.budget.maxChildren;
  if (maxChildren !== undefined && parent.spawnedChildren >= maxChildren) {
    return { limit: "maxChildren", of: parent.id, used: parent.spawnedChildren, max: maxChildren };
  }
  const childDepth = parent.depth + 1;
  for (const h of parentChain) {
    const maxDepth = h.budget.maxDepth;
    if (maxDepth !== undefined && childDepth - h.depth > maxDepth) {
      return { limit: "maxDepth", of: h.id, used: childDepth - h.depth, max: maxDepth };
    }
  }
  return undefined;
}

/** Children one model turn may start when the caller's budget says nothing (issue 37). */
export const DEFAULT_MAX_CHILDREN_PER_TURN = 16;
/** Handles a whole tree may spawn when the top's budget says nothing (issue 37). */
export const DEFAULT_MAX_DESCENDANTS = 200;

/**
 * The per-turn cap: a `task` call whose place among its turn's `task` calls (`ctx.callOrdinal`)
 * is past the caller's `maxChildrenPerTurn` is refused, with words the model can act on.
 */
export function perTurnRefusal(
  budget: Budget,
  ordinal: number | undefined,
  caller: string,
): string | undefined {
  const max = budget.maxChildrenPerTurn ?? DEFAULT_MAX_CHILDREN_PER_TURN;
  if (ordinal === undefined || ordinal < max) {
    return undefined;
  }
  return `refused: more than ${max} children in one turn (maxChildrenPerTurn of ${caller}); wait for these results, then delegate the rest`;
}

/** One level of a spawner's chain as the per-tree cap reads it. */
export interface TreeCapLevel {
  id: string;
  budget: Budget;
  /** Handles ever spawned below this one. */
  descendants: number;
  /** The top of the tree: the default cap applies here. */
  top: boolean;
}

/** The per-tree cap along the chain (nearest first): `maxDescendants`, 200 at the top by default. */
export function treeRefusal(chain: TreeCapLevel[]): string | undefined {
  for (const level of chain) {
    const max = level.budget.maxDescendants ?? (level.top ? DEFAULT_MAX_DESCENDANTS : undefined);
    if (max !== undefined && level.descendants >= max) {
      return `refused: more than ${max} children in this tree (maxDescendants of ${level.id})`;
    }
  }
  return undefined;
}

export function describeExhausted(e: Exhausted): string {
  return `budget exhausted: ${e.limit} of ${e.of} (${e.used} of ${e.max})`;
}

/** Adds one model turn's spend to the handle and to every ancestor's roll-up. */
/** What one model turn cost: its turns (1, or more after a replay), tokens and tool calls. */
export interface TurnSpend {
  turns: number;
  usage: Usage;
  toolCalls: number;
}

export function spend(chain: HandleRecord[], { turns, usage, toolCalls }: TurnSpend): void {
  const [own] = chain;
  if (own) {
    own.spent.turns += turns;
    own.spent.toolCalls += toolCalls;
    addUsage(own.spent.usage, usage);
  }
  for (const h of chain) {
    h.tree.turns += turns;
    h.tree.toolCalls += toolCalls;
    addUsage(h.tree.usage, usage);
  }
}
