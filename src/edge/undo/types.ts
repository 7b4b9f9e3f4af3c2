/** The undo's RPC and view shapes (issue 44, docs/undo.md): the thread object answers with these. */
import type { CompensationRecord, Request } from "../../core/types";

/** One compensation step as listed: its outcome, or `started` while it runs. */
export type CompensationView =
  | CompensationRecord
  | { callId: string; tool: string; status: "started" };

/** A run's undo: why, who asked, where it stands, and each step. */
export interface UndoView {
  reason: string;
  /** `x-toolnexus-user` of the undo's caller, or `"onFailure"` (the agent's automatic undo). */
  requestedBy: string;
  requestedAt: string;
  /** `awaiting_approval`: the agent's `undo.approvers` decide first (`request`); `declined`: they did not agree. */
  state: "awaiting_approval" | "declined" | "compensating" | "compensated";
  /** The undo's approval request (decided through POST /v1/decisions like any other). */
  request?: Request;
  finishedAt: string | null;
  /** Last call first; a call whose tool has no `compensate` is `not_compensable`. */
  compensations: CompensationView[];
}

export interface UndoInput {
  runId: string;
  reason: string;
  requestedBy: string;
}

export type UndoRefusalCode = "run_not_found" | "run_active" | "nothing_to_undo";

/** `started`: this call began the undo (202); otherwise an earlier one did (200, its result). */
export type UndoOutcome =
  | { ok: true; started: boolean; status: string; undo: UndoView }
  | { ok: false; code: UndoRefusalCode; message: string };
