/**
 * The public shapes of the agent runtime (SPEC §7D): definitions, budgets, handle states,
 * results and inbox items. Everything a result or a handle record holds is plain JSON, so a
 * host can persist it (see `snapshot.ts`).
 */
import type { Request, Tool, Usage, WaitFor } from "../types";
import type { Hooks } from "../hooks";
import type { MetricEvent } from "../metrics";

/** The four handle states. `suspended → running` happens only through the answer to its request. */
export type HandleState = "idle" | "running" | "suspended" | "closed";

/** The closed result-status vocabulary (SPEC §7D pin 3): no other string ever appears. */
export const AGENT_STATUSES = [
  "done",
  "pending",
  "incomplete",
  "interrupted",
  "closed",
  "timeout",
  "error",
] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/**
 * Hierarchical limits. `maxTurns`, `maxTokens` and `maxToolCalls` are pools shared by a
 * handle and everything below it; `maxWallMs` runs from the handle's first wake;
 * `maxChildren` counts children ever spawned, `maxConcurrent` children running at once,
 * `maxDepth` the levels of descendants allowed below the handle.
 *
 * Two caps hold even without a budget (issue 37: one model turn asked for 1,000 children):
 * `maxChildrenPerTurn` (default 16) children one model turn of the handle may start, and
 * `maxDescendants` (default 200 at the top of a tree, unset below) handles ever spawned below
 * it at any depth. A `task` call past either gets a tool error the model reads
 * (`refused: more than 16 children in one turn …`). Set a larger number to allow more.
 */
export interface Budget {
  maxTurns?: number;
  maxTokens?: number;
  maxToolCalls?: number;
  maxWallMs?: number;
  maxChildren?: number;
  maxConcurrent?: number;
  maxDepth?: number;
  maxChildrenPerTurn?: number;
  maxDescendants?: number;
}
export type BudgetLimit = keyof Budget;

/** Why a handle was closed, as `onClose` hears it. */
export type CloseReason = "closed" | "interrupted" | "budget" | "error";

/** What lifecycle callbacks get: the handle's identity and its own inbox. */
export interface HandleView {
  readonly id: string;
  readonly agent: string;
  readonly depth: number;
  post(item: InboxItem): PostResult;
}

/** An agent: a system prompt, a view of tools, optionally a team it may delegate to. */
export interface AgentDef {
  name: string;
  /** What the agent does: its tool description, and its line in a caller's `task` tool. */
  does: string;
  systemPrompt?: string;
  /** SPEC spelling of `systemPrompt`; `systemPrompt` wins when both are set. */
  soul?: string;
  /** A model name, or `"inherit"` (the default): the parent's model, the runtime's at the top. */
  model?: string;
  tools?: Tool[];
  /** Agents this one may delegate to through `task` (names from the registry, or definitions). */
  team?: Array<string | AgentDef | { def: AgentDef }>;
  budget?: Budget;
  /** Answers requests raised by this agent's tools, and by its team's when they have none. */
  waitFor?: WaitFor;
  /** The §8 hooks for this agent's runs; replaces (never merges with) the runtime's. */
  hooks?: Hooks;
  /** The §8 metrics sink for this agent's runs; replaces the runtime's. */
  onMetric?: (event: MetricEvent) => void;
  /** Once, before the first turn: the place to post session-start items into the inbox. */
  onSpawn?(handle: HandleView): void | Promise<void>;
  /** Before the handle's final state is recorded. */
  onClose?(handle: HandleView, reason: CloseReason): void | Promise<void>;
}

/** One unsolicited item for a handle's inbox. */
export interface InboxItem {
  text: string;
  /** A handle path, or `"external"` (the default). */
  from?: string;
  /** Default `"message"`; `"timer"` items coalesce into one counted entry per drain. */
  channel?: string;
}

export type PostResult = { ok: true; size: number } | { ok: false; error: string };
export type WakeResult = { ok: true; queued: boolean } | { ok: false; error: string };

/** What `wait` resolves with. Plain JSON. */
export interface AgentResult {
  status: AgentStatus;
  handle: string;
  agent: string;
  /** The final text (`done`), the partial text (`incomplete`), or "". */
  text: string;
  /** Model turns of this handle alone, across all its wakes. */
  turns: number;
  /** This handle's usage plus everything its descendants spent (the roll-up). */
  usage: Usage;
  toolCallCount: number;
  /** For `incomplete`: the limit that stopped the handle (`maxTurns`, `maxTokens`, …, `length`). */
  limit?: string;
  /** For `incomplete` by a budget: whose budget it was. */
  limitOf?: string;
  /** For `pending`: the request; `data.path` (segments) names the suspended subtree, this handle's. */
  pending?: Request;
  /** For `error`, `interrupted`, `timeout`, `closed`: what happened. */
  error?: string;
}

/** A handle as `list` and `inspect` show it. */
export interface HandleInfo {
  id: string;
  agent: string;
  parent: string | null;
  depth: number;
  state: HandleState;
  /** Own model turns. */
  turns: number;
  /** Own usage. */
  ownUsage: Usage;
  /** Rolled-up usage (own + descendants). */
  usage: Usage;
  toolCalls: number;
  inbox: number;
  children: string[];
  budget: Budget;
  /** Every transition so far, as `"from→to"`. */
  transitions: string[];
  pending?: Request;
  result?: AgentResult;
}
