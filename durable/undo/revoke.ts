/**
 * `decision: "revoke"` (docs/undo.md): an approver of a request takes back its approval while
 * the approval is held in its undo window (window.ts). The approval's row is replaced, in the
 * caller's transaction, by a `revoke` decision whose answer declines the call with reason
 * `revoked by <who>`; the ledger's receipt hook appends a `revoked` receipt for it. After the
 * window (or once applied), or for a request with nothing held, it is `409 request_not_pending`.
 * Revoking again is the identical repeat (200).
 */
import { answerDeclined } from "../../src/core/answers";
import { eligibleMembers, quorumOf, rulesOf } from "../../src/core/approvers/rules";
import { settledEvent, type InboxOutbox } from "../outbox/inbox";
import type { DecisionInput, DecisionOutcome } from "../../src/edge/protocol";
import type { ApproverDirectory } from "../../src/edge/approvals/groups";
import { decisionView } from "../storage/decision-view";
import type { RunStore } from "../storage/run-store";
import type { VoteStore } from "../storage/vote-store";
import { openRequests } from "../storage/open-requests";
import { isHeld } from "./window";

export function revokeApproval(
  deps: { store: RunStore; votes: VoteStore; directory: ApproverDirectory },
  input: DecisionInput,
  now: number,
): DecisionOutcome {
  const { store } = deps;
  const run = store.run(input.runId);
  if (!run) {
    return { ok: false, code: "run_not_found", message: `no run ${input.runId} in this thread` };
  }
  const request =
    deps.votes.approval(input.requestId)?.request ??
    openRequests(store, run).find((r) => r.id === input.requestId);
  const existing = store.decision(input.requestId);
  if (existing && existing.runId === run.runId && !request) {
    // Decided without rules (so without an undo window), and no longer open.
    return {
      ok: false,
      code: "request_not_pending",
      message: `request ${input.requestId} has no approval held in an undo window`,
      decision: decisionView(existing),
    };
  }
  if (!request || (existing && existing.runId !== run.runId)) {
    return {
      ok: false,
      code: "request_not_found",
      message: `run ${run.runId} has no request ${input.requestId}`,
    };
  }
  const rules = rulesOf(request);
  const who = input.decidedBy?.trim() ? deps.directory.resolve(input.decidedBy) : undefined;
  if (!who) {
    return {
      ok: false,
      code: "member_required",
      message: "decidedBy: a revoke names the approver who takes the approval back",
    };
  }
  if (!rules || !eligibleMembers(rules, deps.directory, true).has(who)) {
    return {
      ok: false,
      code: "not_an_approver",
      message: `${who} is not an approver of request ${request.id}`,
    };
  }
  if (existing?.decision === "revoke" && existing.decidedBy === who) {
    return { ok: true, decision: decisionView(existing), duplicate: true };
  }
  if (!existing || existing.appliedAt !== null || !isHeld(existing, request, now)) {
    return {
      ok: false,
      code: "request_not_pending",
      message: existing
        ? `request ${request.id} is no longer in its undo window (${existing.decision}${existing.appliedAt === null ? "" : ", applied"})`
        : `request ${request.id} has no approval to revoke yet`,
      ...(existing ? { decision: decisionView(existing) } : {}),
    };
  }
  const row = {
    requestId: request.id,
    runId: run.runId,
    decision: "revoke" as const,
    answer: answerDeclined(request.id, `revoked by ${who}`),
    channel: input.channel,
    decidedBy: who,
    webhookId: input.webhookId ?? null,
    decidedAt: now,
  };
  store.replaceDecision(row, request);
  return { ok: true, decision: decisionView({ ...row, appliedAt: null }), duplicate: false };
}

/** {@link revokeApproval}, and the request's inbox row with it (the inbox shows it declined). */
export function revokeInInbox(
  deps: Parameters<typeof revokeApproval>[0] & { outbox: InboxOutbox },
  input: DecisionInput,
  now: number,
): DecisionOutcome {
  const outcome = revokeApproval(deps, input, now);
  const run = deps.store.run(input.runId);
  const request = deps.votes.approval(input.requestId)?.request;
  const decision = deps.store.decision(input.requestId);
  if (outcome.ok && !outcome.duplicate && run && request && decision) {
    const rules = rulesOf(request);
    deps.outbox.record(
      { run, request },
      {
        event: settledEvent(decision),
        decision,
        votes: deps.votes.votes(request.id),
        needed: quorumOf(rules),
      },
      now,
    );
  }
  return outcome;
}
