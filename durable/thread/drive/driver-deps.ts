/**
 * What the driver works with (one typed context: the thread's stores, its clock, its event
 * log, its hooks) and the work it finds in storage. Its own module, so the checkpoint writer
 * and the driver both read these types without importing each other.
 */
import type { Request } from "../../../src/core/types";
import type { AgentDefinition } from "../../../src/edge/agent";
import type { EdgeConfig, EdgeEnv } from "../../../src/edge/settings";
import type { ErrorInfo } from "../../../src/edge/error-sink";
import type { InboxHooks } from "../../outbox/inbox";
import type { InlineWaiters } from "./elicitation";
import type { HandleStore } from "../../storage/handle-store";
import type { ReceiptDraft } from "../../../src/edge/receipts/receipt";
import type { DecisionRow, RunRow, RunStore } from "../../storage/run-store";
import type { Reask } from "../../versions/reask";
import type { ApproverDirectory } from "../../../src/edge/approvals/groups";
import type { DisagreementEntry } from "../../../src/edge/policy/run-tools";

export interface DriverDeps {
  store: RunStore;
  agents: ReadonlyMap<string, AgentDefinition>;
  config: EdgeConfig;
  env: EdgeEnv;
  fetch?: typeof fetch;
  now(): number;
  /** Groups synchronous writes into one atomic commit. */
  transaction<T>(fn: () => T): T;
  /**
   * Appends to the run's event log and pushes to live listeners; `HALTED_SIGNAL` is only
   * pushed, never stored (thread/event-hub.ts).
   */
  record(runId: string, type: string, data: unknown): void;
  /** The application's error sink (`createEdge({ onError })`). */
  report?: (error: unknown, info: ErrorInfo) => void;
  /** A run halted on `request`: notify its approver. */
  halted(run: RunRow, request: Request): Promise<void>;
  /** Decisions for MCP elicitations being waited for inline. */
  waiters: InlineWaiters;
  elicitationWindowMs: number;
  /** ctx.suspendAfterMs for every call: how long an A2A call polls inline before `remote_task`. */
  remoteTaskWindowMs?: number;
  /** The driver started (true) or stopped (false) waiting inline for a decision (see drive/elicitation.ts). */
  parked?: (waiting: boolean) => void;
  /** Keeps the object alive for work after the response (the OTLP export). */
  waitUntil?(promise: Promise<unknown>): void;
  /** The approvals inbox's outbox (outbox/inbox.ts); each hook runs inside its change's transaction. */
  inbox?: InboxHooks;
  /** The sub-agent tree of runs whose agent has a team (durable/agents/). */
  handles?: HandleStore;
  /** Appends a receipt to the thread's chain, inside the caller's transaction (outbox/receipts.ts). */
  appendReceipt?(draft: ReceiptDraft, at: Date): void;
  /** Supersedes a request whose migrated arguments need other approvers (versions/reask.ts). */
  reask?(plan: Reask): Promise<boolean>;
  /** The approver groups: a policy's ask naming an unknown one is a config_error (issue 43). */
  directory?(): ApproverDirectory;
  /** Keeps a shadow policy's disagreement in the list at GET /v1/policy/disagreements (issue 43). */
  keepDisagreement?(entry: DisagreementEntry): void;
}

export type Work =
  | { kind: "continue"; recovering: boolean }
  | { kind: "answer"; decision: DecisionRow; request: Request; finalOnly: boolean };
