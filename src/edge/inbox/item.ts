/**
 * The approvals inbox's item: one pending (or recently decided) request as an approver
 * sees it, projected from its thread. Plain JSON, the same shape in the thread's outbox,
 * in the group's `InboxObject` and in `GET /v1/approvals`.
 */
import type { Request } from "../../core/types";
import { rulesOf } from "../../core/approvers/rules";

/** What last happened to the request (the outbox's event vocabulary). */
export type InboxEvent =
  | "surfaced"
  | "vote"
  | "decided"
  | "expired"
  | "cancelled"
  | "escalated"
  // Issue 42: the rule's `warnBefore` passed; the item keeps `expiring: true` while open.
  | "expiring";

export interface InboxVote {
  decidedBy: string;
  decision: string;
  channel: string;
  at: string;
  args?: unknown;
  /** The version of the arguments this vote was cast on. */
  argsHash?: string;
  reset?: boolean;
}

export interface InboxDecision {
  outcome: "approved" | "declined" | "cancelled" | "expired";
  decidedBy: string | null;
  /** How: webhook, page, inbox, slack, policy or expiry. */
  channel: string;
  decidedAt: string;
  reason: string | null;
}

export interface InboxItem {
  requestId: string;
  runId: string;
  threadId: string;
  agent: string;
  /** A sub-agent's request: which one asked, on whose behalf ("refunds, for coordinator"). */
  askedBy?: string;
  /** The user's input that started the run. */
  input: string;
  requestedBy: string | null;
  tool: string | null;
  /** The arguments now up for approval (or, once decided, those decided on): an edit replaces them. */
  args: unknown;
  /** Their version: what an approval from this item must carry (`argsHash`). */
  argsHash: string;
  /** The member whose edit set `args`; null while they are the request's own. */
  editedBy: string | null;
  metadata: unknown;
  prompt: string;
  kind: Request["kind"];
  /** `kind: "input"`: the fields asked for (`data.schema`, a flat JSON Schema). */
  schema?: unknown;
  expiresAt: string | null;
  /** The group the request's rules name (`default` without one), then any escalation group. */
  groups: string[];
  status: "open" | "decided";
  event: InboxEvent;
  votes: InboxVote[];
  /** Approvals needed when the request has rules. */
  needed: number | null;
  /** Which top-level arguments an approver may change (`true`: all), from the request's rules. */
  editable?: boolean | string[];
  decision: InboxDecision | null;
  /**
   * An approval held in its undo window (approver rule `delay`) until then: meanwhile its
   * approvers may Undo it (`decision: "revoke"`; docs/undo.md).
   */
  heldUntil?: string;
  surfacedAt: string;
  updatedAt: string;
  /** Per request, grows with every change: an older version never overwrites a newer one. */
  version: number;
  /** Issue 42: set once the request's `warnBefore` passed (the inbox's "expires soon" badge). */
  expiring?: true;
}

export const DEFAULT_GROUP = "default";
export const INBOX_LIMIT_DEFAULT = 50;
export const INBOX_LIMIT_MAX = 200;

/** The group a request's rules name (`data.approvers.group`), else `default`. */
export function groupOfRequest(request: Pick<Request, "data">): string {
  return rulesOf(request)?.group ?? DEFAULT_GROUP;
}

// The cursor lives with the listing's filters and order (listing.ts); re-exported for old importers.
export { decodeCursor, encodeCursor, type InboxCursor } from "./find/listing";
