/**
 * What the worker and the thread object exchange: RPC inputs/outputs and queue
 * message bodies. Plain JSON, so both sides can change independently.
 */
import type { Answer, Message, Request, RunResult, Usage } from "../core/types";
import type { SlackThread } from "./slack/sync";

export interface StartInput {
  runId: string;
  threadId: string;
  agent: string;
  input: string;
  callbackUrl?: string;
  metadata?: unknown;
  publicUrl: string;
}

export type StartOutcome =
  | { ok: true; run: RunView }
  | { ok: false; code: "thread_busy" | "unknown_agent" | "run_exists"; message: string };

/** `resume` queue: look at this run's stored state and do whatever work it has. */
export interface DriveMessage {
  threadId: string;
  runId: string;
}

/** `notify` queue: tell the run's approver about this pending request. */
export interface NotifyMessage {
  threadId: string;
  runId: string;
  requestId: string;
}

/** One ledger entry: the decision, the answer it became, and its audit trail. */
export interface DecisionView {
  requestId: string;
  decision: "approve" | "decline" | "cancel" | "expire";
  answer: Answer;
  channel: "webhook" | "page" | "inbox" | "slack" | "policy" | "expiry";
  decidedBy: string | null;
  webhookId: string | null;
  decidedAt: string;
  appliedAt: string | null;
}

export interface RunView {
  runId: string;
  threadId: string;
  agent: string;
  status: "running" | "pending" | "done" | "incomplete" | "failed" | "cancelled";
  input: string;
  pending: Request | null;
  expiresAt: string | null;
  text: string | null;
  usage: Usage;
  turns: number;
  model: string | null;
  toolCalls: RunResult["toolCalls"];
  toolCallCount: number;
  decisions: DecisionView[];
  error: string | null;
  limit: string | null;
  metadata: unknown;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  transcript?: Message[];
}

export type CancelOutcome =
  | { ok: true; run: RunView }
  | { ok: false; code: "run_not_found" | "run_not_active"; message: string };

export interface DecisionInput {
  runId: string;
  requestId: string;
  decision: "approve" | "decline" | "cancel";
  data?: unknown;
  reason?: string;
  decidedBy?: string;
  channel: "webhook" | "page" | "inbox" | "slack" | "policy" | "expiry";
  webhookId?: string;
}

export type DecisionOutcome =
  | { ok: true; status: 202 | 200; decision: DecisionView; duplicate: boolean }
  | {
      ok: false;
      status: 400 | 404 | 409;
      code: string;
      message: string;
      issues?: string[];
      decision?: DecisionView;
    };

export type RequestDescription =
  | { state: "unknown" }
  | { state: "closed"; status: RunView["status"] }
  | { state: "decided"; decision: DecisionView }
  | { state: "open"; request: Request; agent: string; expiresAt: string | null };

export interface NotificationSource {
  run: {
    runId: string;
    threadId: string;
    agent: string;
    callbackUrl: string | null;
    publicUrl: string;
    metadata: unknown;
  };
  request: Request;
  expiresAt: number | null;
}

/** The thread object's RPC surface, as the worker sees it through the binding. */
export interface ThreadRpc extends SlackThread {
  start(input: StartInput): Promise<StartOutcome>;
  getRun(runId: string, options?: { transcript?: boolean }): Promise<RunView | undefined>;
  decide(input: DecisionInput): Promise<DecisionOutcome>;
  describeRequest(runId: string, requestId: string): Promise<RequestDescription>;
  cancel(runId: string): Promise<CancelOutcome>;
  drive(runId?: string): Promise<void>;
  notification(message: NotifyMessage): Promise<NotificationSource | undefined>;
  notificationFailed(message: NotifyMessage, reason: string): Promise<void>;
  fetch(input: string, init?: RequestInit): Promise<Response>;
}
