/**
 * The tree's spend and shape for one drive, in memory (issue 37: a thousand children cost
 * 13.7 s of the object, and the cost grew faster than the tree). The budget walk used to read
 * and decode every handle row, and sum every descendant's spend, before every model call of
 * every handle: O(tree) per call, O(tree²) per fan-out (O(tree³) with the sums). Here the rows
 * are read once per drive; each handle's own spend and the sum of everything below it are
 * kept up to date as checkpoints write them (O(depth) per write), so a walk is O(depth) plus
 * two one-row reads of the run's own totals.
 *
 * Only one drive runs per thread (the drive lock), so nothing else writes the tree meanwhile.
 */
import type { Budget } from "../../src/core/agents/types";
import type { Spent } from "../../src/core/agents/tree/handle";
import { addUsage } from "../../src/core/providers/model";
import { zeroUsage, type HandleRow } from "../storage/handle-store";

interface Entry {
  budget: Budget;
  createdAt: number;
  own: Spent;
  /** Everything every descendant spent. */
  below: Spent;
  descendants: number;
  children: number;
  /** Children per agent name (the next deterministic ordinal). */
  perAgent: Map<string, number>;
}

export interface TreeLedger {
  /** A child's stored budget and creation time, its own and its descendants' spend. */
  entry(handle: string): Readonly<Entry> | undefined;
  /** Handles ever spawned below `handle` (the top of the tree included). */
  descendants(handle: string): number;
  children(handle: string): number;
  childrenNamed(parent: string, agent: string): number;
  /** A child was spawned (its row inserted). */
  added(row: Pick<HandleRow, "handle" | "parent" | "agent" | "budget" | "createdAt">): void;
  /** A child's stored own spend is now `own` (its checkpoint wrote it). */
  spent(handle: string, own: Spent): void;
}

const zeroSpent = (): Spent => ({ turns: 0, usage: zeroUsage(), toolCalls: 0 });

export function treeLedger(top: string, rows: HandleRow[]): TreeLedger {
  const entries = new Map<string, Entry>();
  const newEntry = (budget: Budget, createdAt: number): Entry => ({
    budget,
    createdAt,
    own: zeroSpent(),
    below: zeroSpent(),
    descendants: 0,
    children: 0,
    perAgent: new Map(),
  });
  entries.set(top, newEntry({}, 0));

  /** Every proper ancestor of `handle` we know, nearest first. */
  function* ancestors(handle: string) {
    for (let id = parentOf(handle); id?.startsWith(top); id = parentOf(id)) {
      const entry = entries.get(id);
      if (entry) {
        yield entry;
      }
    }
  }

  const add = (row: Pick<HandleRow, "handle" | "parent" | "agent" | "budget" | "createdAt">) => {
    if (entries.has(row.handle)) {
      return;
    }
    entries.set(row.handle, newEntry(row.budget, row.createdAt));
    const parent = entries.get(row.parent);
    if (parent) {
      parent.children += 1;
      parent.perAgent.set(row.agent, (parent.perAgent.get(row.agent) ?? 0) + 1);
    }
    for (const above of ancestors(row.handle)) {
      above.descendants += 1;
    }
  };

  const spent = (handle: string, own: Spent) => {
    const entry = entries.get(handle);
    if (!entry) {
      return;
    }
    const delta: Spent = {
      turns: own.turns - entry.own.turns,
      toolCalls: own.toolCalls - entry.own.toolCalls,
      usage: {
        promptTokens: own.usage.promptTokens - entry.own.usage.promptTokens,
        completionTokens: own.usage.completionTokens - entry.own.usage.completionTokens,
        totalTokens: own.usage.totalTokens - entry.own.usage.totalTokens,
      },
    };
    entry.own = { turns: own.turns, toolCalls: own.toolCalls, usage: { ...own.usage } };
    for (const above of ancestors(handle)) {
      above.below.turns += delta.turns;
      above.below.toolCalls += delta.toolCalls;
      addUsage(above.below.usage, delta.usage);
    }
  };

  // Parents before children (a parent's path is a prefix, so it sorts first).
  for (const row of [...rows].sort((a, b) => a.handle.length - b.handle.length)) {
    add(row);
    spent(row.handle, { turns: row.turns, usage: row.usage, toolCalls: row.toolCalls.length });
  }

  return {
    entry: (handle) => entries.get(handle),
    descendants: (handle) => entries.get(handle)?.descendants ?? 0,
    children: (handle) => entries.get(handle)?.children ?? 0,
    childrenNamed: (parent, agent) => entries.get(parent)?.perAgent.get(agent) ?? 0,
    added: add,
    spent,
  };
}

const parentOf = (handle: string): string | undefined => {
  const cut = handle.lastIndexOf("/");
  return cut > 0 ? handle.slice(0, cut) : undefined;
};
