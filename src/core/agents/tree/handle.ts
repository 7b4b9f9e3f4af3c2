/**
 * A handle: the record the runtime keeps per spawned agent. The record is plain JSON (it is
 * what `snapshot()` returns, one per handle); the live part next to it (definition,
 * abort controller, waiters) is rebuilt from the registry after a restore.
 *
 * Record shape (version 1), as a host persists it:
 * {
 *   id: "root/coordinator.1/refunds.2",  parent: "root/coordinator.1" | null,  agent, depth,
 *   state: "idle" | "running" | "suspended" | "closed",
 *   inbox: InboxItem[],            // unsolicited items not yet consumed by a completed turn
 *   draining: InboxItem[],         // items the running turn took (restored if it is interrupted)
 *   budget: Budget,                // effective budget after the carve at spawn
 *   spent: { turns, usage, toolCalls },   // own
 *   tree:  { turns, usage, toolCalls },   // own + descendants (the roll-up ledger)
 *   startedAt?: number,            // clock time of the first wake (maxWallMs)
 *   childSeq: { [agent]: n },      // the last ordinal handed out per agent name (ids are deterministic)
 *   children: string[], spawnedChildren: number,
 *   tasks: { [taskKey]: childId }, // the current wake's task calls, for reattachment on replay
 *   transitions: string[],         // "idle→running", … (the §7D trace)
 *   pending?: Request,             // the request this handle is suspended on (data.path = this handle, as segments)
 *   halted?: { run, input },       // durable halt: the halted RunResult (the checkpoint the deepest
 *                                  // handle resumes at) and the turn input a parent replays
 *   result?: AgentResult,          // the last settled result
 *   queued: boolean, spawnHookDone: boolean
 * }
 * Transcripts are not in the record: they live in the runtime's ConversationStore under the
 * handle id, and hold the pre-turn transcript while a handle is suspended (the §7D rewind).
 */
import type { Message, Request, RunResult, Usage } from "../../types";
import type { Toolkit } from "../../toolkit";
import type { AgentDef, AgentResult, Budget, HandleState, InboxItem } from "../types";
import { emptyUsage } from "../../providers/model";

export interface Spent {
  turns: number;
  usage: Usage;
  toolCalls: number;
}

export interface HaltedTurn {
  /** The halted run as the loop returned it (messages end with the turn's placeholders). */
  run: Omit<RunResult, "text">;
  /** The user message the halted turn started with: what a replay sends again. */
  input: string;
}

export interface HandleRecord {
  id: string;
  parent: string | null;
  agent: string;
  depth: number;
  state: HandleState;
  inbox: InboxItem[];
  draining: InboxItem[];
  budget: Budget;
  spent: Spent;
  tree: Spent;
  startedAt?: number;
  childSeq: Record<string, number>;
  children: string[];
  spawnedChildren: number;
  tasks: Record<string, string>;
  transitions: string[];
  pending?: Request;
  halted?: HaltedTurn;
  result?: AgentResult;
  queued: boolean;
  spawnHookDone: boolean;
}

/** The live part: never persisted, rebuilt on restore. */
export interface Live {
  record: HandleRecord;
  /** Undefined only for the root. */
  def?: AgentDef;
  toolkit?: Promise<Toolkit>;
  controller?: AbortController;
  /** A run of this handle is in progress (running, or suspended inline on a `waitFor`). */
  busy: boolean;
  waiters: Array<(result: AgentResult) => void>;
  /** Settles when the in-progress run has been recorded. */
  settled?: Promise<void>;
  spawnHook?: Promise<void>;
  /** Ordinals of this run's task keys (reset at every run, so a replay meets the same keys). */
  taskOrdinals: Map<string, number>;
  /** A pending wake while the parent's concurrency gate is full. */
  queuedPrompt?: string | undefined;
  /** Children of this handle holding a concurrency slot (gate 2), and wakes waiting for one (FIFO). */
  slots: number;
  wakeQueue: string[];
  closing: boolean;
  /** Handles ever spawned below this one (the per-tree cap); counted again on restore. */
  descendants: number;
}

export function newLive(record: HandleRecord, def: AgentDef | undefined): Live {
  return {
    record,
    ...(def ? { def } : {}),
    busy: false,
    waiters: [],
    taskOrdinals: new Map(),
    slots: 0,
    wakeQueue: [],
    closing: record.state === "closed",
    descendants: 0,
  };
}

export const ROOT_ID = "root";

export const emptySpent = (): Spent => ({ turns: 0, usage: emptyUsage(), toolCalls: 0 });

export function newRecord({
  id,
  parent,
  agent,
  depth,
  budget,
}: Pick<HandleRecord, "id" | "parent" | "agent" | "depth" | "budget">): HandleRecord {
  return {
    id,
    parent,
    agent,
    depth,
    state: "idle",
    inbox: [],
    draining: [],
    budget,
    spent: emptySpent(),
    tree: emptySpent(),
    childSeq: {},
    children: [],
    spawnedChildren: 0,
    tasks: {},
    transitions: [],
    queued: false,
    spawnHookDone: false,
  };
}

/** The next deterministic, parent-scoped id: `<parent>/<agent>.<n>`, n counted per agent name. */
export function nextChildId(parent: HandleRecord, agent: string): string {
  const n = (parent.childSeq[agent] ?? 0) + 1;
  parent.childSeq[agent] = n;
  return `${parent.id}/${agent}.${n}`;
}

/** The handle's messages of a transcript: a copy the runtime may hand out. */
export function copyMessages(messages: Message[] | undefined): Message[] {
  return messages ? structuredClone(messages) : [];
}
