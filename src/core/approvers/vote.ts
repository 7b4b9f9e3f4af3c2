/**
 * The one rule that decides a vote (docs/architecture.md §6 "Rules"). Pure: the caller brings the
 * request (its rules in `data.approvers`, its arguments in `data.args`), who may decide,
 * who asked, the votes so far and the new vote; it gets back what happens. The edge's
 * ledger, the in-process ballot and every channel call this, so they agree by construction.
 */
import type { Answer, Request } from "../types";
import { answerDeclined, answerOutput } from "../answers";
import { canonicalJson } from "../schema/canonical-json";
import { argsHash } from "./args-hash";
import { isRecord, quorumOf, rulesOf, type Rules } from "./rules";
import { argsInData, carriesArgs, reservedKeyIn } from "./edit-fields";

export type VoteDecision = "approve" | "decline" | "cancel";
export type VoteChannel =
  | "webhook"
  | "page"
  | "inbox"
  | "slack"
  | "policy"
  | "expiry"
  | "oauth"
  | "chat"
  | "ag-ui"
  | "a2a"
  | "mcp"
  // A newer deploy's version check: the request it superseded (never a person's vote).
  | "version"
  // An approval email's personal link, a Microsoft Teams card (DESIGN §8).
  | "email"
  | "teams";

/** A vote as the ledger keeps it. `args` is set on an edit; `reset` when a later edit voided it. */
export interface Vote {
  decidedBy: string;
  decision: VoteDecision;
  channel: VoteChannel | (string & {});
  args?: unknown;
  /** {@link argsHash} of the arguments this vote was cast on (after its own edit, if any). */
  argsHash?: string;
  /** RFC 3339. */
  at: string;
  reset?: boolean;
  /** Issue 42: the member `decidedBy` stood in for (a delegation); their seat is this vote's. */
  onBehalfOf?: string;
}

/** A vote being cast. `args` (approve only) is a full replacement of the tool's arguments. */
export interface Ballot {
  decidedBy?: string;
  decision: VoteDecision;
  args?: unknown;
  /**
   * The version of the arguments the approver saw ({@link argsHash}). An approval of older
   * arguments is refused (`args_changed`); without it an approval is taken to be of the
   * current arguments only while they are the request's own (nobody edited them).
   */
  argsHash?: string;
  /** The answer's data. Never the arguments: on a request about a call, `data.args` is 400 `invalid_data`. */
  data?: unknown;
  reason?: string;
  /**
   * Issue 42: `decidedBy` stands in for this member (the host checked the delegation). The
   * vote takes their seat: it needs their right to decide, is refused on their own request as
   * on the delegate's, and their seat votes once, whoever sits in it.
   */
  onBehalfOf?: string;
}

export type VoteRefusal =
  | "member_required"
  | "already_decided"
  | "not_an_approver"
  | "own_request"
  | "duplicate"
  | "conflicting_vote"
  | "request_expired"
  | "args_changed"
  | "invalid_args"
  | "invalid_data"
  | "not_editable";

export type VoteOutcome =
  | {
      outcome: "applied";
      answer: Answer;
      votes: number;
      needed: number;
      /** The version of the arguments this vote was cast on: record it with the vote. */
      argsHash: string;
      /** Set when this vote changed the arguments: record it on the vote; earlier approvals are reset. */
      edit?: { args: Record<string, unknown> };
    }
  | {
      outcome: "waiting";
      votes: number;
      needed: number;
      argsHash: string;
      edit?: { args: Record<string, unknown> };
    }
  | {
      outcome: "refused";
      code: VoteRefusal;
      message: string;
      votes: number;
      needed: number;
      /** With `args_changed`: the arguments now up for approval, and their version. */
      current?: { args: Record<string, unknown>; argsHash: string };
    };

export interface VoteInput {
  request: Request;
  /** Member ids who may decide now (see `eligibleMembers`). Ignored for a request without rules. */
  members: ReadonlySet<string> | readonly string[];
  /** The requester's member id (or identity): with rules they may not decide their own request. */
  requestedBy?: string;
  /** Earlier votes on this request, oldest first. */
  votes: readonly Vote[];
  vote: Ballot;
  /**
   * The request was settled outside the votes or can no longer be decided (it expired, the
   * run was cancelled): everyone gets this refusal, except the same member's identical
   * repeat of a vote already cast (a `duplicate`).
   */
  closed?: { code: "request_expired" | "already_decided"; message: string };
}

/**
 * Decides one vote. Order of checks: member required → settled or closed (409: the same
 * member's identical repeat is a 200 duplicate, their different vote a conflict) → not an
 * approver / own request (403) → duplicate (200) or conflicting (409) vote of the same
 * member → an approval of other arguments than those now up (409 `args_changed`) → `data.args`
 * on a request about a call (400 `invalid_data`) → edited args (400) → tally.
 * @example
 * const out = decideVote({ request, members: ["ann", "bob"], votes: [], vote: { decidedBy: "ann", decision: "approve" } });
 * // with quorum 2: { outcome: "waiting", votes: 1, needed: 2, argsHash: "…" }
 */
export function decideVote(input: VoteInput): VoteOutcome {
  const { request, vote } = input;
  const rules = rulesOf(request);
  const needed = quorumOf(rules);
  const live = input.votes.filter((v) => !v.reset);
  const current = currentArgs(request, input.votes);
  const version = argsHash(current);
  const approvals = live.filter((v) => v.decision === "approve").length;
  const refuse = (
    code: VoteRefusal,
    message: string,
    now?: { args: Record<string, unknown>; argsHash: string },
  ): VoteOutcome => ({
    outcome: "refused",
    code,
    message,
    votes: approvals,
    needed,
    ...(now ? { current: now } : {}),
  });

  const who = vote.decidedBy?.trim() ?? "";
  if (rules && who === "") {
    return refuse("member_required", `request ${request.id} has approver rules: say who decides`);
  }
  // One person votes once, and so does one seat: a delegate's vote for ann is ann's vote too.
  const seat = vote.onBehalfOf ?? who;
  const mine = live.find((v) => v.decidedBy === who || (v.onBehalfOf ?? v.decidedBy) === seat);
  const same = mine !== undefined && sameVote(mine, vote, current);
  const settled = live.some((v) => v.decision !== "approve") || approvals >= needed;
  if (settled || input.closed) {
    if (same) {
      return refuse("duplicate", `${voter(mine)} already voted ${vote.decision} on ${request.id}`);
    }
    if (mine && !input.closed) {
      return refuse(
        "conflicting_vote",
        `${voter(mine)} already voted ${mine.decision} on ${request.id}`,
      );
    }
    return input.closed
      ? refuse(input.closed.code, input.closed.message)
      : refuse("already_decided", `request ${request.id} is already decided`);
  }
  if (rules) {
    if (!has(input.members, seat)) {
      return refuse("not_an_approver", `${who} may not decide request ${request.id}`);
    }
    if (
      input.requestedBy !== undefined &&
      (input.requestedBy === who || input.requestedBy === seat)
    ) {
      return refuse(
        "own_request",
        seat === who
          ? `${who} asked for this and may not decide it`
          : `${input.requestedBy} asked for this: neither they nor anyone standing in for them may decide it`,
      );
    }
  }
  if (mine) {
    return same
      ? refuse("duplicate", `${voter(mine)} already voted ${vote.decision} on ${request.id}`)
      : refuse(
          "conflicting_vote",
          `${voter(mine)} already voted ${mine.decision} on ${request.id}; a vote cannot be changed`,
        );
  }

  if (vote.decision !== "approve") {
    const reason = vote.reason ?? (vote.decision === "cancel" ? "cancelled" : "declined");
    return {
      outcome: "applied",
      answer: answerDeclined(request.id, reason),
      votes: 0,
      needed,
      argsHash: version,
    };
  }

  const edited = canonicalJson(current) !== canonicalJson(originalArgs(request));
  if (vote.argsHash === undefined ? edited : vote.argsHash !== version) {
    return refuse(
      "args_changed",
      vote.argsHash === undefined
        ? `the arguments of ${request.id} were edited: approve them with their argsHash`
        : `the arguments of ${request.id} changed since they were shown: review the current ones`,
      { args: current, argsHash: version },
    );
  }

  // One way to edit: `args`, checked below; the data sent with a vote never sets them.
  const smuggled = argsInData(request, vote.data);
  if (smuggled) {
    return refuse("invalid_data", smuggled);
  }
  let args = current;
  let edit: { args: Record<string, unknown> } | undefined;
  if (vote.args !== undefined) {
    if (!isRecord(vote.args)) {
      return refuse("invalid_args", "args must be an object: the tool's full arguments");
    }
    const reserved = reservedKeyIn(vote.args);
    if (reserved) {
      return refuse("invalid_args", reserved);
    }
    const changed = changedKeys(current, vote.args);
    if (changed.length > 0) {
      const locked = changed.filter((k) => !editableKey(rules, k));
      if (locked.length > 0) {
        return refuse(
          "not_editable",
          `${locked.map((k) => JSON.stringify(k)).join(", ")} may not be edited on ${request.id}`,
        );
      }
      args = vote.args;
      edit = { args: vote.args };
    }
  }

  // An edit resets earlier approvals: the editor's vote is the first for the new arguments.
  const votes = edit ? 1 : approvals + 1;
  const cast = edit ? argsHash(args) : version;
  if (votes < needed) {
    return { outcome: "waiting", votes, needed, argsHash: cast, ...(edit ? { edit } : {}) };
  }
  // The answer's `data.args` is set here only, to arguments the checks above let through.
  const data =
    !carriesArgs(request) || canonicalJson(args) === canonicalJson(request.data?.args)
      ? vote.data
      : { ...(isRecord(vote.data) ? vote.data : {}), args };
  return {
    outcome: "applied",
    answer: answerOutput(request.id, data),
    votes,
    needed,
    argsHash: cast,
    ...(edit ? { edit } : {}),
  };
}

/** The arguments the request was raised with (`data.args`; `{}` when it has none). */
export function originalArgs(request: Request): Record<string, unknown> {
  const args = request.data?.args;
  return isRecord(args) ? args : {};
}

/** The arguments now up for approval: the request's, or the latest edit's. */
export function currentArgs(request: Request, votes: readonly Vote[]): Record<string, unknown> {
  let args: unknown = request.data?.args;
  for (const v of votes) {
    if (v.decision === "approve" && v.args !== undefined) {
      args = v.args;
    }
  }
  return isRecord(args) ? args : {};
}

/** Approvals that count now (not reset by an edit). */
export function liveApprovals(votes: readonly Vote[]): number {
  return votes.filter((v) => !v.reset && v.decision === "approve").length;
}

/**
 * Top-level keys whose values differ. A key present on one side only counts as changed
 * whatever its value (`null` included), and only own keys are read, so `constructor` or
 * `toString` are keys like any other, never the prototype's.
 */
export function changedKeys(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => {
    const inBefore = Object.hasOwn(before, k);
    if (inBefore !== Object.hasOwn(after, k)) {
      return true;
    }
    return canonicalJson(before[k]) !== canonicalJson(after[k]);
  });
}

function editableKey(rules: Rules | undefined, key: string): boolean {
  const editable = rules?.editable;
  return editable === true || (Array.isArray(editable) && editable.includes(key));
}

function sameVote(earlier: Vote, vote: Ballot, current: Record<string, unknown>): boolean {
  if (earlier.decision !== vote.decision) {
    return false;
  }
  // A live approval always approved the current arguments (an edit resets the others).
  return vote.decision !== "approve" || vote.args === undefined
    ? true
    : canonicalJson(vote.args) === canonicalJson(current);
}

/** Who cast a vote, as a message names them ("bob for ann" when bob stood in). */
function voter(vote: Vote): string {
  return vote.onBehalfOf ? `${vote.decidedBy} for ${vote.onBehalfOf}` : vote.decidedBy;
}

function has(members: ReadonlySet<string> | readonly string[], who: string): boolean {
  return members instanceof Set ? members.has(who) : (members as readonly string[]).includes(who);
}
