/**
 * The domain's view of stored rows: camelCase keys (durable/storage/sql.ts) and JSON
 * columns decoded (durable/storage/decode.ts). Nothing above storage sees SQL's naming or
 * JSON text; the stores are the only writers.
 */
import type { Answer, Message, Request, RunResult, Usage } from "../../src/core/types";
import type { Budget, HandleState } from "../../src/core/agents/types";
import type { TraceCarrier } from "../../src/core/tracing";
import type { Channel, RunError } from "../../src/edge/protocol";

/** `compensated` (issue 44): an undo took back what the run did (durable/undo/). */
export type RunStatus =
  | "running"
  | "pending"
  | "done"
  | "incomplete"
  | "failed"
  | "cancelled"
  | "compensated";
export type ToolMessage = Extract<Message, { role: "tool" }>;

/** A stored run, decoded (durable/storage/decode.ts): JSON columns arrive as values. */
export interface RunRow {
  runId: string;
  threadId: string;
  agent: string;
  status: RunStatus;
  input: string;
  callbackUrl: string | null;
  /** The caller's `metadata`, null when it gave none. */
  metadata: unknown;
  publicUrl: string;
  /** The surfaced request while the run is `pending`. */
  pending: Request | null;
  /** A request an in-process wait is answering (an MCP elicitation mid-call). */
  inlineRequest: Request | null;
  expiresAt: number | null;
  text: string | null;
  usage: Usage;
  turns: number;
  model: string | null;
  /** Why a failed run failed (stored as JSON; decode.ts reads a plain message stored before codes). */
  error: RunError | null;
  limitReason: string | null;
  createdAt: number;
  updatedAt: number;
  cancelledAt: number | null;
  /** Schema v4; null on runs stored before it (absent on rows built by hand). */
  requestedBy?: string | null;
  /** Schema v8: the halted result's trace context (`RunResult.trace`), null untraced. */
  trace?: TraceCarrier | null;
  /** Schema v8: the agent version the run started, or last suspended, under (null before v8). */
  agentVersion?: string | null;
}

export interface DecisionRow {
  requestId: string;
  runId: string;
  /** `revoke` (issue 44): an approval taken back in its undo window (durable/undo/revoke.ts). */
  decision: "approve" | "decline" | "cancel" | "expire" | "revoke";
  answer: Answer;
  channel: Channel;
  decidedBy: string | null;
  webhookId: string | null;
  decidedAt: number;
  appliedAt: number | null;
  /** Schema v11: the agent version the decision was recorded under (null: not recorded). */
  agentVersion?: string | null;
  /** Schema v13 (issue 42): the member `decidedBy` stood in for (a delegation). */
  onBehalfOf?: string | null;
}

export interface EventRow {
  id: number;
  runId: string;
  type: string;
  data: string;
  at: number;
}

export type ChildStatus = "running" | "pending" | "done" | "incomplete" | "failed" | "cancelled";

/** The limits a handle was spawned with. */
export type HandleBudget = Budget;

/** A stored handle, decoded: its JSON columns arrive as values. */
export interface HandleRow {
  runId: string;
  handle: string;
  parent: string;
  agent: string;
  depth: number;
  /** The parent's tool call that spawned it: the task key a re-invoked call reattaches by. */
  callId: string;
  prompt: string;
  state: HandleState;
  status: ChildStatus;
  turns: number;
  usage: Usage;
  toolCalls: RunResult["toolCalls"];
  budget: HandleBudget;
  /** The request the handle is suspended on. */
  pending: Request | null;
  /** Its halted turn's results so far (null while no turn is halted). */
  slots: ToolMessage[] | null;
  text: string | null;
  limitReason: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface ApprovalRow {
  requestId: string;
  runId: string;
  request: Request;
  surfacedAt: number | null;
  remindEvery: number | null;
  reminders: number;
  nextRemindAt: number | null;
  escalateAt: number | null;
  escalateTo: string | null;
  escalatedAt: number | null;
}
