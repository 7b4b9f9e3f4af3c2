/**
 * What the worker and the thread object exchange: RPC inputs/outputs and queue
 * message bodies. Plain JSON, so both sides can change independently.
 */
import type { UndoInput, UndoOutcome, UndoView } from "./undo/types";
import type { Answer, Message, Request, RunResult, Usage } from "../core/types";
import type { PolicyFields } from "./policy/view";
import type { SlackThread } from "./slack/sync";
import type { EmailThread } from "./email/thread";
import type { TeamsThread } from "./teams/sync";
import type { Packable } from "./packed";

export interface StartInput {
  runId: string;
  threadId: string;
  agent: string;
  input: string;
  callbackUrl?: string;
  metadata?: unknown;
  /** Who asked (shown to approvers; with rules they may not approve their own request). */
  requestedBy?: string;
  publicUrl: string;
  /**
   * Continue the thread only for the identity that asked for its earlier runs (A2A's
   * `contextId` and MCP's `threadId` name threads a client chose: another identity sending
   * the same id is refused, `thread_forbidden`, never shown the conversation; issue 37).
   */
  requesterOnly?: boolean;
}

export type StartOutcome =
  | { ok: true; run: RunView }
  | {
      ok: false;
      code: "thread_busy" | "unknown_agent" | "run_exists" | "thread_forbidden";
      message: string;
    };

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
  /** Absent: the first notification (`run.pending`). */
  reminder?: number;
  escalated?: boolean;
  /** Issue 42: the request expires soon (its rule's `warnBefore`): `request.expiring`. */
  expiring?: true;
}

/**
 * Where a vote came from (docs/architecture.md §6 "Identity"), with this wave's protocol
 * channels (DESIGN §7): MCP sign-in, AI SDK chat, AG-UI, A2A and our MCP server; and
 * `version`, a newer deploy's version check (a request it superseded: durable/ledger/version-change.ts);
 * and the approvers' channels of DESIGN §8: `email` (a personal link from an approval email) and
 * `teams` (a Microsoft Teams card).
 */
export const CHANNELS = [
  "webhook",
  "page",
  "inbox",
  "slack",
  "policy",
  "expiry",
  "oauth",
  "chat",
  "ag-ui",
  "a2a",
  "mcp",
  "version",
  "email",
  "teams",
] as const;
export type Channel = (typeof CHANNELS)[number];

/** One ledger entry: the decision, the answer it became, and its audit trail. */
export interface DecisionView {
  requestId: string;
  /** `revoke`: an approval taken back during its undo window (docs/undo.md). */
  decision: "approve" | "decline" | "cancel" | "expire" | "revoke";
  answer: Answer;
  channel: Channel;
  decidedBy: string | null;
  webhookId: string | null;
  decidedAt: string;
  appliedAt: string | null;
  /** Issue 42: the member `decidedBy` stood in for (a delegation). */
  onBehalfOf?: string;
}

/** One handle of a run's sub-agent tree (SPEC §7D states); the run's own agent comes first. */
export interface TreeHandleView {
  handle: string;
  agent: string;
  state: "idle" | "running" | "suspended" | "closed";
  turns: number;
  usage: Usage;
  pending?: Request;
}

/**
 * Why a run failed (DESIGN §4's error shape): `code` to branch on (`value_too_large`,
 * `config_error`, `provider_error`, `run_aborted`, `driver_failed`, …) and a message for people.
 */
export interface RunError {
  code: string;
  message: string;
}

export interface RunView {
  runId: string;
  threadId: string;
  agent: string;
  /** `compensated`: an undo took back what the run did (docs/undo.md). */
  status: "running" | "pending" | "done" | "incomplete" | "failed" | "cancelled" | "compensated";
  input: string;
  /** The surfaced request, with the version of its arguments an approval carries. */
  pending: (Request & { argsHash: string } & PolicyFields) | null;
  expiresAt: string | null;
  text: string | null;
  usage: Usage;
  turns: number;
  model: string | null;
  toolCalls: RunResult["toolCalls"];
  toolCallCount: number;
  decisions: DecisionView[];
  /** Requests with approver rules: every vote (those an edit reset marked) and every refused attempt. */
  requests: ApprovalView[];
  /**
   * Only while the run waits on more than `pending`: every request open now, `pending` first
   * (other suspended calls of the turn, a call's several requests), each decidable now.
   */
  openRequests?: Request[];
  requestedBy: string | null;
  /** The agent version the run started, or last suspended, under (null: stored before versions). */
  agentVersion: string | null;
  /** How many decision receipts the run has: an export with fewer lost its tail. */
  receiptCount: number;
  /** Set when the run is `failed`. */
  error: RunError | null;
  limit: string | null;
  metadata: unknown;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  /** The sub-agent tree of an agent with a team (absent otherwise). */
  tree?: TreeHandleView[];
  /** The run's undo, once one was asked for (docs/undo.md). */
  undo?: UndoView;
  transcript?: Message[];
}

export interface VoteView {
  decidedBy: string;
  decision: "approve" | "decline" | "cancel";
  channel: string;
  /** Set on an edit: the full arguments this vote approved. */
  args?: unknown;
  /** The version of the arguments the vote was cast on. */
  argsHash?: string;
  at: string;
  reset?: true;
  /** Issue 42: the member `decidedBy` stood in for (a delegation). */
  onBehalfOf?: string;
}

export interface RefusalView {
  decidedBy: string;
  channel: string;
  code: string;
  at: string;
}

export interface ApprovalView {
  requestId: string;
  rules: Record<string, unknown>;
  /** Approvals that count now, and how many apply the request. */
  approvals: number;
  needed: number;
  /** The arguments now up for approval (the latest edit's, else the request's) and their version. */
  args: Record<string, unknown>;
  argsHash: string;
  votes: VoteView[];
  refused: RefusalView[];
  reminders: number;
  escalatedAt: string | null;
  /** Which policy decided that a person is asked (issue 43): its source, and the whole record. */
  policy?: PolicyFields["policy"];
  policyDecision?: PolicyFields["policyDecision"];
}

export type CancelOutcome =
  | { ok: true; run: RunView }
  | { ok: false; code: "run_not_found" | "run_not_active"; message: string };

export interface DecisionInput {
  runId: string;
  requestId: string;
  /** `revoke` (issue 44): take back an approval held in its undo window (rule `delay`). */
  decision: "approve" | "decline" | "cancel" | "revoke";
  data?: unknown;
  reason?: string;
  /** With approve on a request with rules: the tool's full arguments, edited. */
  args?: Record<string, unknown>;
  /** With approve: the version of the arguments the approver saw (`argsHash`). */
  argsHash?: string;
  decidedBy?: string;
  channel: Channel;
  webhookId?: string;
  /**
   * Issue 42: the delegations `decidedBy` holds now (the route looks them up); the ledger
   * decides whether they let the caller stand in for someone on this request.
   */
  delegations?: ActiveDelegation[];
}

/** A member standing in for another until a time (issue 42, `POST /v1/approvers/delegations`). */
export interface ActiveDelegation {
  id: string;
  /** The member who is away (member id). */
  from: string;
  /** The member deciding for them (member id). */
  to: string;
  /** RFC 3339: the delegation ends then. */
  until: string;
  /** Only requests of these groups; absent: whatever `from` may decide. */
  groups?: string[];
}

/**
 * What a refused decision is, in the wire's words: the codes clients already see in
 * `{ error: { code } }`. The thread says what happened; the edge's one table
 * (src/edge/http/status.ts) says which HTTP status each code is.
 */
export type DecisionRefusalCode =
  | "run_not_found"
  | "request_not_found"
  | "request_not_pending"
  | "request_expired"
  | "request_not_decidable"
  | "already_decided"
  | "conflicting_decision"
  | "not_an_approver"
  | "own_request"
  | "member_required"
  | "args_changed"
  | "invalid_args"
  | "not_editable"
  | "edit_refused"
  | "invalid_data"
  | "agent_changed"
  | "config_error";

/**
 * `decision` is the ledger entry, or null while a request with rules waits for more
 * votes; `votes`/`needed` are set when the request has rules. An accepted decision is new
 * (`duplicate: false`) or the identical repeat of one already recorded.
 */
export type DecisionOutcome =
  | {
      ok: true;
      decision: DecisionView | null;
      duplicate: boolean;
      votes?: number;
      needed?: number;
    }
  | {
      ok: false;
      code: DecisionRefusalCode;
      message: string;
      issues?: string[];
      decision?: DecisionView;
      votes?: number;
      needed?: number;
      /** With `args_changed`: the arguments now up for approval and their version. */
      current?: { args: Record<string, unknown>; argsHash: string };
    };

export type RequestDescription =
  | { state: "unknown" }
  | { state: "closed"; status: RunView["status"] }
  | { state: "decided"; decision: DecisionView }
  | {
      state: "open";
      request: Request;
      agent: string;
      expiresAt: string | null;
      /** The user's input that started the run, who asked, the run's metadata. */
      input?: string;
      requestedBy?: string | null;
      metadata?: unknown;
      /** The arguments now up for approval (an edit replaces the request's). */
      args?: unknown;
      /** Their version: what an approval from the page carries. */
      argsHash: string;
      /** With approver rules: the votes so far. */
      approval?: ApprovalView | null;
    };

/** May this person decide this request? The member id a personal link speaks for. */
export type ApproverCheck =
  | { ok: true; member: string; expiresAt: number | null }
  | {
      ok: false;
      code: Extract<
        DecisionRefusalCode,
        | "run_not_found"
        | "request_not_found"
        | "request_not_pending"
        | "not_an_approver"
        | "own_request"
        | "config_error"
      >;
      message: string;
    };

export interface NotificationSource {
  run: {
    runId: string;
    threadId: string;
    agent: string;
    callbackUrl: string | null;
    publicUrl: string;
    metadata: unknown;
    requestedBy?: string | null;
  };
  /** With the version of its arguments now up for approval. */
  request: Request & { argsHash: string };
  expiresAt: number | null;
  /** With rules: where the count stands. */
  votes?: { votes: number; needed: number };
}

/** One run of a thread, oldest first (the chat and AG-UI routes rebuild a conversation from these). */
export interface RunSummary {
  runId: string;
  status: RunView["status"];
  input: string;
  requestedBy: string | null;
  metadata: unknown;
  createdAt: string;
}

/** One stored event of a run's log, its data parsed. */
export interface LoggedEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

/** The thread object's RPC surface, as the worker sees it through the binding. */
export interface ThreadRpc extends SlackThread, EmailThread, TeamsThread {
  start(input: StartInput): Promise<StartOutcome>;
  /** The run's view; a large one comes packed (src/edge/packed.ts: read it with `unpack`). */
  getRun(runId: string, options?: { transcript?: boolean }): Promise<Packable<RunView> | undefined>;
  decide(input: DecisionInput): Promise<DecisionOutcome>;
  describeRequest(runId: string, requestId: string): Promise<RequestDescription>;
  checkApprover(runId: string, requestId: string, approver: string): Promise<ApproverCheck>;
  cancel(runId: string): Promise<CancelOutcome>;
  /** Compensates a finished run (POST /v1/runs/:runId/undo; docs/undo.md). */
  undo(input: UndoInput): Promise<UndoOutcome>;
  /** The thread's runs, oldest first. */
  runs(): Promise<RunSummary[]>;
  /** The run's signed receipts in chain order (unsigned ones are signed first); undefined: no such run. */
  runReceipts(runId: string): Promise<string[] | undefined>;
  /** A run's logged events after `afterId` (0: all), as GET /events would replay them. */
  runEvents(runId: string, afterId?: number): Promise<Packable<LoggedEvent[]>>;
  /** The run's view and every event with its stored time (the run timeline page), or undefined. */
  timeline(runId: string): Promise<
    | Packable<{
        run: RunView;
        events: Array<{ id: number; type: string; data: unknown; at: number }>;
      }>
    | undefined
  >;
  /** Every request the run is suspended on now (the surfaced one and its halted siblings). */
  openRequests(runId: string): Promise<Request[]>;
  /**
   * The run's callbackUrl (A2A's push notification config), replaced or cleared when
   * `change` is given; undefined for an unknown run. Checked against CALLBACK_ALLOW first.
   */
  callbackUrl(
    runId: string,
    change?: { url: string | null },
  ): Promise<{ callbackUrl: string | null } | undefined>;
  drive(runId?: string): Promise<void>;
  notification(message: NotifyMessage): Promise<NotificationSource | undefined>;
  /** False when it was no failure after all: a late attempt got through (nothing recorded). */
  notificationFailed(message: NotifyMessage, reason: string): Promise<boolean>;
  notificationDelivered(message: NotifyMessage): Promise<void>;
  /** Puts a configuration mistake that touched this run on its events (`error`, code `config_error`). */
  configProblem(runId: string, message: string): Promise<void>;
  fetch(input: string, init?: RequestInit): Promise<Response>;
}
