/**
 * A decision receipt (docs/receipts.md): what was decided, on exactly which arguments, under
 * which rule and agent version, by whom — one per applied decision, chained per thread by
 * `seq` and `prev` so an export with a receipt edited, dropped or moved does not verify.
 */
import type { Rules } from "../../core/approvers/rules";
import { canonicalJson } from "../../core/schema/canonical-json";
import { sha256 } from "../../core/schema/sha256";
import { toBase64Url } from "../approvals/base64url";
import type { ReceiptPolicy } from "../policy/receipt-policy";

/**
 * The inbox's outcome words, and (issue 44) `revoked`: an approval taken back during its
 * `delay`; `compensated`: one step of an undo (see `compensation`).
 */
export type ReceiptDecision =
  | "approved"
  | "declined"
  | "expired"
  | "cancelled"
  | "revoked"
  | "compensated";

/** What one step of an undo did to one call (on a `compensated` receipt). */
export interface ReceiptCompensation {
  callId: string;
  status: "ran" | "failed" | "not_compensable";
  error?: string;
}

/** The static part of the request's approver rule that says who had to agree on what. */
export interface ReceiptRule {
  group?: string;
  /** Individual approvers, when the rule names them (besides or instead of a group). */
  anyOf?: string[];
  quorum?: number;
  editable?: boolean | string[];
}

/** One vote that counted towards the outcome. */
export interface ReceiptVote {
  decidedBy: string;
  decision: "approve" | "decline" | "cancel";
  channel: string;
  at: string;
  /** Issue 42: the member `decidedBy` stood in for (a delegation). */
  onBehalfOf?: string;
}

export interface Receipt {
  v: 1;
  /** The receipt's place in its thread: 1, 2, … */
  seq: number;
  threadId: string;
  runId: string;
  requestId: string;
  tool: string;
  /** base64url SHA-256 of the canonical JSON of the final (possibly edited) arguments. */
  argsHash: string;
  agentVersion: string;
  rule: ReceiptRule | null;
  decision: ReceiptDecision;
  reason?: string;
  decidedBy?: string;
  /** Issue 42: set when `decidedBy` acted as a delegate: the member they stood in for. */
  onBehalfOf?: string;
  votes?: ReceiptVote[];
  channel: string;
  /** Which policy decided that the call needed (or did not need) a person (issue 43). */
  policy?: ReceiptPolicy;
  /** With `policy`: the final arguments (`argsHash` is theirs), for `policy-replay`. */
  args?: Record<string, unknown>;
  /** With `policy`: who started the run (the evaluation's subject), for `policy-replay`. */
  requestedBy?: string;
  /** With `policy`: the run's agent, for `policy-replay`. */
  agent?: string;
  /** On a `compensated` receipt: the call taken back and how that went. */
  compensation?: ReceiptCompensation;
  /** RFC 3339, never earlier than the previous receipt's in the thread. */
  at: string;
  /** base64url SHA-256 of the previous receipt's compact JWS; null for the thread's first. */
  prev: string | null;
}

/** What the ledger knows when it applies a decision; the chain adds `v`, `seq`, `at` and `prev`. */
export type ReceiptDraft = Omit<Receipt, "v" | "seq" | "at" | "prev">;

/** A signed receipt as a thread's outbox carries it to the receipts store. */
export interface SignedReceipt {
  threadId: string;
  seq: number;
  runId: string;
  at: string;
  jws: string;
}

/**
 * The rule a receipt records: the request's rules without reminders and escalation timing
 * (they say when people were asked, not who had to agree). Null for a request without rules.
 */
export function receiptRule(rules: Rules | undefined): ReceiptRule | null {
  if (!rules) {
    return null;
  }
  const rule: ReceiptRule = {};
  if (rules.group !== undefined) {
    rule.group = rules.group;
  }
  if (rules.anyOf !== undefined) {
    rule.anyOf = [...rules.anyOf];
  }
  if (rules.quorum !== undefined) {
    rule.quorum = rules.quorum;
  }
  if (rules.editable !== undefined) {
    rule.editable = Array.isArray(rules.editable) ? [...rules.editable] : rules.editable;
  }
  return rule;
}

const encoder = new TextEncoder();

/** `prev` of the receipt after the one `jws` carries: base64url SHA-256 of the JWS text. */
export function chainHash(jws: string): string {
  return toBase64Url(sha256(encoder.encode(jws)));
}

/**
 * The JSON a receipt is signed as: canonical (sorted keys, no undefined members), so signing
 * the same receipt twice gives the same bytes — and, Ed25519 being deterministic, the same JWS.
 */
export function receiptPayload(receipt: Receipt): string {
  return canonicalJson(receipt);
}
