/**
 * What the runtime's pieces (turn, task tool, lifecycle, resume) share: the handle table, the
 * options, and the few operations they call on each other. `runtime.ts` builds it; the
 * pieces take it as their first argument, so each stays a plain module with one job.
 */
import type { Answer, RefusalText, WaitFor } from "../types";
import type { Hooks } from "../hooks";
import type { MetricEvent } from "../metrics";
import type { ConversationStore } from "../client/conversation-store";
import type { Clock } from "./limits/clock";
import type { TurnGate } from "./limits/gates";
import type { Admission } from "./limits/admission";
import type { Registry } from "./registry";
import type { AgentModelBackend } from "./model";
import type { HandleRecord, Live } from "./tree/handle";
import type {
  AgentDef,
  AgentResult,
  Budget,
  CloseReason,
  HandleState,
  HandleView,
  InboxItem,
  PostResult,
  WakeResult,
} from "./types";

export interface CoreOptions {
  client: AgentModelBackend;
  model: string;
  hooks?: Hooks;
  onMetric?: (event: MetricEvent) => void;
  waitFor?: WaitFor;
  refusalText?: RefusalText;
  maxTurns: number;
  inboxCap: number;
  shutdownMs: number;
  onTransition?: (event: TransitionEvent) => void;
}

/** One state change of one handle (the §7D transition trace), as `onTransition` hears it. */
export interface TransitionEvent {
  handle: string;
  from: HandleState;
  to: HandleState;
  at: number;
}

export interface RuntimeCore {
  readonly options: CoreOptions;
  readonly clock: Clock;
  readonly store: ConversationStore;
  readonly gate: TurnGate;
  /** Model calls under a `maxTokens`/`maxTurns` pool start only once it can pay (limits/admission.ts). */
  readonly admission: Admission;
  readonly registry: Registry;
  readonly live: Map<string, Live>;
  /** Free-form notes beside the transitions ("wake QUEUED …", "task replay → REATTACH …"). */
  note(text: string): void;
  spawn(parent: string, def: AgentDef | string, budget?: Budget): Live;
  post(id: string, item: InboxItem | string): PostResult;
  wake(id: string, prompt?: string): WakeResult;
  wait(id: string, options?: { timeout?: number; by?: string }): Promise<AgentResult>;
  interrupt(id: string): Promise<void>;
  close(id: string, options?: { force?: boolean; reason?: CloseReason }): Promise<void>;
  /** Routes an answer to the deepest handle suspended on it at or below `top`, then cascades up to `top`. */
  answer(top: string, answer: Answer): Promise<AgentResult>;
}

export function viewOf(core: RuntimeCore, live: Live): HandleView {
  const { id, agent, depth } = live.record;
  return { id, agent, depth, post: (item) => core.post(id, item) };
}

export function get(core: RuntimeCore, id: string): Live {
  const live = core.live.get(id);
  if (!live) {
    throw new TypeError(`no handle ${JSON.stringify(id)} in this runtime`);
  }
  return live;
}

/** The handle and its ancestors up to and including the root, nearest first. */
export function chainOf(core: RuntimeCore, record: HandleRecord): HandleRecord[] {
  const chain: HandleRecord[] = [];
  let current: HandleRecord | undefined = record;
  while (current) {
    chain.push(current);
    current = current.parent === null ? undefined : core.live.get(current.parent)?.record;
  }
  return chain;
}

const ALLOWED: Record<HandleState, HandleState[]> = {
  idle: ["running", "closed"],
  running: ["idle", "suspended", "closed"],
  // Leaving `suspended` takes the answer (→ running inline, → idle durably) or a cancel (→ idle).
  suspended: ["running", "idle"],
  closed: [],
};

/** The one place a handle changes state: checked against the §7D machine and traced. */
export function transition(core: RuntimeCore, record: HandleRecord, to: HandleState): void {
  const from = record.state;
  if (!ALLOWED[from].includes(to)) {
    throw new Error(`agent runtime: ${record.id} cannot go ${from}→${to}`);
  }
  record.state = to;
  record.transitions.push(`${from}→${to}`);
  core.options.onTransition?.({ handle: record.id, from, to, at: core.clock.now() });
}
