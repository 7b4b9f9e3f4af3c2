/**
 * Votes on a request with approver rules (docs/architecture.md §6). The ledger (`decisions.ts`)
 * finds the run and the request and answers 404/409 first; this module applies the
 * kernel's `decideVote` to the stored votes and writes what it says: a refused attempt,
 * a vote that waits for more, or the vote that settles the request (then the outcome
 * lands in `decisions`, like any decision, and the resume path applies it once).
 */
import type { Request } from "../src/core/types";
import { canonicalJson } from "../src/core/canonical-json";
import { eligibleMembers, rulesOf, type Rules } from "../src/core/approvers/rules";
import { VOTE_REFUSAL_STATUS, decideVote } from "../src/core/approvers/vote";
import type { ApproverDirectory } from "../src/edge/approver-groups";
import type { DecisionInput, DecisionOutcome } from "../src/edge/protocol";
import { decisionView } from "./decisions";
import type { DecisionRow, RunRow, RunStore } from "./run-store";
import type { VoteStore } from "./vote-store";

export interface VoteDeps {
  store: RunStore;
  votes: VoteStore;
  directory: ApproverDirectory;
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
  run: RunRow,
  request: Request,
  input: DecisionInput,
  now: number,
  settled: DecisionRow | undefined,
  checked?: string,
): DecisionOutcome | EditCheck {
  const rules = rulesOf(request) as Rules;
  deps.directory.checkRules(rules, { agent: run.agent, tool: toolOf(request) });
  const who = input.decidedBy?.trim() ? deps.directory.resolve(input.decidedBy) : undefined;
  const approval = deps.votes.approval(request.id);
  const escalated = approval?.escalate_at != null && approval.escalate_at <= now;
  const votes = deps.votes.votes(request.id);
  const outcome = decideVote({
    request,
    members: eligibleMembers(rules, deps.directory, escalated),
    ...(run.requested_by ? { requestedBy: deps.directory.resolve(run.requested_by) } : {}),
    votes,
    vote: {
      ...(who === undefined ? {} : { decidedBy: who }),
      decision: input.decision,
      ...(input.args === undefined ? {} : { args: input.args }),
      ...(input.data === undefined ? {} : { data: input.data }),
      ...(input.reason === undefined ? {} : { reason: input.reason }),
    },
  });
  const counts = { votes: outcome.votes, needed: outcome.needed };

  if (outcome.outcome === "refused") {
    if (outcome.code === "duplicate") {
      return {
        ok: true,
        status: 200,
        decision: settled ? decisionView(settled) : null,
        duplicate: true,
        ...counts,
      };
    }
    if (outcome.code === "not_an_approver" || outcome.code === "own_request") {
      deps.votes.keepRequest(run.run_id, request);
      deps.votes.insertRefusal({
        request_id: request.id,
        run_id: run.run_id,
        decided_by: who ?? "",
        channel: input.channel,
        code: outcome.code,
        at: now,
      });
    }
    const status = VOTE_REFUSAL_STATUS[outcome.code] as 400 | 403 | 409;
    // Over HTTP a member's changed mind keeps the ledger's name for it.
    const code = outcome.code === "conflicting_vote" ? "conflicting_decision" : outcome.code;
    return { ok: false, status, code, message: outcome.message, ...counts };
  }
  // Settled outside the votes (expiry, a cancelled run): only the repeat above is not a conflict.
  if (settled) {
    return {
      ok: false,
      status: 409,
      code: "already_decided",
      message: `request ${request.id} was already decided (${settled.decision} via ${settled.channel})`,
      decision: decisionView(settled),
    };
  }
  if (outcome.edit && canonicalJson(outcome.edit.args) !== checked) {
    return { checkEdit: { request, args: outcome.edit.args } };
  }

  deps.votes.keepRequest(run.run_id, request);
  if (outcome.edit) {
    deps.votes.resetApprovals(request.id);
  }
  deps.votes.insertVote({
    request_id: request.id,
    run_id: run.run_id,
    decided_by: who ?? "",
    decision: input.decision,
    channel: input.channel,
    args: outcome.edit ? JSON.stringify(outcome.edit.args) : null,
    webhook_id: input.webhookId ?? null,
    at: now,
  });
  if (outcome.outcome === "waiting") {
    return { ok: true, status: 202, decision: null, duplicate: false, ...counts };
  }
  const row = {
    request_id: request.id,
    run_id: run.run_id,
    decision: input.decision,
    answer: JSON.stringify(outcome.answer),
    channel: input.channel,
    decided_by: who ?? null,
    webhook_id: input.webhookId ?? null,
    decided_at: now,
  };
  deps.store.insertDecision(row);
  deps.votes.stopTimers(request.id);
  return {
    ok: true,
    status: 202,
    decision: decisionView({ ...row, applied_at: null }),
    duplicate: false,
    ...counts,
  };
}

export function toolOf(request: Request): string {
  const tool = request.data?.tool;
  return typeof tool === "string" ? tool : "(unknown tool)";
}
