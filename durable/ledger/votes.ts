/**
 * Votes on a request with approver rules (docs/architecture.md §6). The ledger (`decisions.ts`)
 * finds the run and the request and answers 404/409 first; this module applies the
 * kernel's `decideVote` to the stored votes and writes what it says: a refused attempt,
 * a vote that waits for more, or the vote that settles the request (then the outcome
 * lands in `decisions`, like any decision, and the resume path applies it once).
 */
import type { Request } from "../../src/core/types";
import { canonicalJson } from "../../src/core/schema/canonical-json";
import { eligibleMembers, quorumOf, rulesOf, type Rules } from "../../src/core/approvers/rules";
import { decideVote, type Vote, type VoteDecision } from "../../src/core/approvers/vote";
import type { ApproverDirectory } from "../../src/edge/approvals/groups";
import type { DecisionInput, DecisionOutcome } from "../../src/edge/protocol";
import { askingAgentOf } from "../../src/edge/agents/asked-by";
import { decisionView } from "../storage/decision-view";
import type { DecisionRow, RunRow, RunStore } from "../storage/run-store";
import type { VoteStore } from "../storage/vote-store";
import { withLedgerArgs } from "./version-change";
import { standInFor } from "./delegation";

export interface VoteDeps {
  store: RunStore;
  votes: VoteStore;
  directory: ApproverDirectory;
  /** Canonical JSON of edited arguments already checked against the tool (by `checkEdit`). */
  checked?: string;
  /** Arguments a newer agent version migrated this approval's to: the settled answer carries them. */
  migrated?: Record<string, unknown>;
}

/** An edit the object must check against the tool (schema, `when`, `policy`) before it counts. */
export interface EditCheck {
  checkEdit: { request: Request; args: Record<string, unknown> };
}

/**
 * Decides and records one vote. `checked` is the canonical JSON of arguments already
 * checked by `checkEdit`; any other edit comes back as an `EditCheck` and nothing is written.
 */
export function castVote(
  deps: VoteDeps,
  ballot: {
    run: RunRow;
    request: Request;
    input: DecisionInput;
    now: number;
    /** The request's decision row, when one settled it already. */
    settled?: DecisionRow;
  },
): DecisionOutcome | EditCheck {
  const { run, request, input, now, settled } = ballot;
  const checked = deps.checked;
  const rules = rulesOf(request) as Rules;
  deps.directory.checkRules(rules, {
    agent: askingAgentOf(request, run.agent),
    tool: toolOf(request),
  });
  const votes = deps.votes.votes(request.id);
  // A signed delivery counts once for the request's whole life: its replay is the
  // identical repeat, even after an edit reset the vote it cast.
  const delivered =
    input.webhookId === undefined
      ? undefined
      : deps.votes.voteByDelivery(request.id, input.webhookId);
  if (delivered) {
    return replayOf(delivered, { input, settled, votes, needed: quorumOf(rules) });
  }
  const who = input.decidedBy?.trim() ? deps.directory.resolve(input.decidedBy) : undefined;
  const approval = deps.votes.approval(request.id);
  const escalated = approval?.escalateAt != null && approval.escalateAt <= now;
  const closed = closedState(request, { settled, votes, timedOut: expired(run, request, now) });
  const members = eligibleMembers(rules, deps.directory, escalated);
  // Issue 42: a delegate takes the seat of the member they stand in for (./delegation.ts).
  const onBehalfOf = standInFor({
    who,
    delegations: input.delegations,
    rules,
    members,
    votes,
    now,
  });
  const outcome = decideVote({
    request,
    members,
    ...(run.requestedBy ? { requestedBy: deps.directory.resolve(run.requestedBy) } : {}),
    votes,
    vote: {
      ...(who === undefined ? {} : { decidedBy: who }),
      decision: voteOf(input),
      ...(input.args === undefined ? {} : { args: input.args }),
      ...(input.argsHash === undefined ? {} : { argsHash: input.argsHash }),
      ...(input.data === undefined ? {} : { data: input.data }),
      ...(input.reason === undefined ? {} : { reason: input.reason }),
      ...(onBehalfOf === undefined ? {} : { onBehalfOf }),
    },
    ...(closed ? { closed } : {}),
  });
  const counts = { votes: outcome.votes, needed: outcome.needed };

  if (outcome.outcome === "refused") {
    if (outcome.code === "duplicate") {
      return {
        ok: true,
        decision: settled ? decisionView(settled) : null,
        duplicate: true,
        ...counts,
      };
    }
    if (outcome.code === "not_an_approver" || outcome.code === "own_request") {
      deps.votes.keepRequest(run.runId, request);
      deps.votes.insertRefusal({
        requestId: request.id,
        runId: run.runId,
        decidedBy: who ?? "",
        channel: input.channel,
        code: outcome.code,
        at: now,
      });
    }
    // On the wire a member's changed mind keeps the ledger's name for it.
    const code = outcome.code === "conflicting_vote" ? "conflicting_decision" : outcome.code;
    return {
      ok: false,
      code,
      message: outcome.message,
      ...counts,
      ...(outcome.current ? { current: outcome.current } : {}),
      ...(settled && NO_LONGER_OPEN.has(code) ? { decision: decisionView(settled) } : {}),
    };
  }
  if (outcome.edit && canonicalJson(outcome.edit.args) !== checked) {
    return { checkEdit: { request, args: outcome.edit.args } };
  }

  deps.votes.keepRequest(run.runId, request);
  if (outcome.edit) {
    deps.votes.resetApprovals(request.id);
  }
  deps.votes.insertVote({
    requestId: request.id,
    runId: run.runId,
    decidedBy: who ?? "",
    decision: voteOf(input),
    channel: input.channel,
    args: outcome.edit ? JSON.stringify(outcome.edit.args) : null,
    webhookId: input.webhookId ?? null,
    argsHash: outcome.argsHash,
    at: now,
    onBehalfOf: onBehalfOf ?? null,
  });
  if (outcome.outcome === "waiting") {
    return { ok: true, decision: null, duplicate: false, ...counts };
  }
  const row = {
    requestId: request.id,
    runId: run.runId,
    decision: input.decision,
    answer: withLedgerArgs(outcome.answer, { request, migrated: deps.migrated }),
    channel: input.channel,
    decidedBy: who ?? null,
    webhookId: input.webhookId ?? null,
    decidedAt: now,
    onBehalfOf: onBehalfOf ?? null,
  };
  deps.store.insertDecision(row, request);
  deps.votes.stopTimers(request.id);
  return {
    ok: true,
    decision: decisionView({ ...row, appliedAt: null }),
    duplicate: false,
    ...counts,
  };
}

/** Whether the request's time ran out, whether or not the expiry alarm has run yet. */
export function expired(run: RunRow, request: Request, now: number): boolean {
  const own = request.expiresAt === undefined ? Number.NaN : Date.parse(request.expiresAt);
  if (!Number.isNaN(own)) {
    return own <= now;
  }
  return run.expiresAt !== null && run.expiresAt <= now && run.pending?.id === request.id;
}

/**
 * Why nobody can vote any more, when the votes themselves did not settle the request: it
 * expired (by the clock or by the alarm's decision), or it was settled outside the votes
 * (a cancelled run). A request the votes settled answers through the rule's own checks.
 */
function closedState(
  request: Request,
  state: { settled: DecisionRow | undefined; votes: readonly Vote[]; timedOut: boolean },
): { code: "request_expired" | "already_decided"; message: string } | undefined {
  const { settled, votes, timedOut } = state;
  if (settled?.decision === "expire" || (!settled && timedOut)) {
    return { code: "request_expired", message: `request ${request.id} expired` };
  }
  const byVote = votes.some(
    (v) => !v.reset && v.decision === settled?.decision && v.decidedBy === settled?.decidedBy,
  );
  if (settled && !byVote) {
    return {
      code: "already_decided",
      message: `request ${request.id} was already decided (${settled.decision} via ${settled.channel})`,
    };
  }
  return undefined;
}

/** A signed delivery seen before: the same decision is a duplicate, another one a conflict. */
function replayOf(
  delivered: Vote,
  replay: {
    input: DecisionInput;
    settled: DecisionRow | undefined;
    votes: readonly Vote[];
    needed: number;
  },
): DecisionOutcome {
  const { input, settled } = replay;
  const counts = {
    votes: replay.votes.filter((v) => !v.reset && v.decision === "approve").length,
    needed: replay.needed,
  };
  if (delivered.decision !== input.decision) {
    return {
      ok: false,
      code: "conflicting_decision",
      message: `delivery ${input.webhookId} already voted ${delivered.decision}`,
    };
  }
  return {
    ok: true,
    decision: settled ? decisionView(settled) : null,
    duplicate: true,
    ...counts,
  };
}

/** Refusals of a request that is settled or closed: they show the decision that settled it. */
/** A vote's word: `revoke` is no vote (durable/undo/revoke.ts takes it before the ledger). */
function voteOf(input: DecisionInput): VoteDecision {
  if (input.decision === "revoke") {
    throw new Error("a revoke reached the vote count; it is recorded by durable/undo/revoke.ts");
  }
  return input.decision;
}

const NO_LONGER_OPEN = new Set([
  "already_decided",
  "conflicting_decision",
  "request_expired",
  "args_changed",
]);

export function toolOf(request: Request): string {
  const tool = request.data?.tool;
  return typeof tool === "string" ? tool : "(unknown tool)";
}
