/**
 * What the approval page and personal links need from a thread (docs/architecture.md §6
 * "Identity"): the request with its run's context and votes so far, and whether a given
 * person may decide it (the same membership the vote rule uses).
 */
import type { Request } from "../../src/core/types";
import { eligibleMembers, rulesOf } from "../../src/core/approvers/rules";
import { currentArgs } from "../../src/core/approvers/vote";
import { argsHash } from "../../src/core/approvers/args-hash";
import type { ApproverCheck, RequestDescription } from "../../src/edge/protocol";
import { askingAgentOf } from "../../src/edge/agents/asked-by";
import type { ApproverDirectory } from "../../src/edge/approvals/groups";
import { decisionView } from "../storage/decision-view";
import { openRequests } from "../storage/open-requests";
import type { RunRow, RunStore } from "../storage/run-store";
import { approvalView } from "../storage/run-view";
import { toolOf } from "./votes";
import type { VoteStore } from "../storage/vote-store";

/** What the approval page shows for one request, or why it cannot. */
export function describeRequest(
  deps: { store: RunStore; votes: VoteStore },
  runId: string,
  requestId: string,
): RequestDescription {
  const run = deps.store.run(runId);
  if (!run) {
    return { state: "unknown" };
  }
  const decided = deps.store.decision(requestId);
  if (decided && decided.runId === runId) {
    return { state: "decided", decision: decisionView(decided) };
  }
  const request = openRequests(deps.store, run).find((r) => r.id === requestId);
  if (!request) {
    return run.status === "pending" || run.status === "running"
      ? { state: "unknown" }
      : { state: "closed", status: run.status };
  }
  return openDescription(deps.votes, run, request);
}

/** The open request as the page shows it. */
export function openDescription(
  votes: VoteStore,
  run: RunRow,
  request: Request,
): Extract<RequestDescription, { state: "open" }> {
  const kept = votes.approval(request.id);
  return {
    state: "open",
    request,
    agent: run.agent,
    expiresAt: run.expiresAt === null ? null : new Date(run.expiresAt).toISOString(),
    input: run.input,
    requestedBy: run.requestedBy ?? null,
    metadata: run.metadata,
    args: rulesOf(request) ? currentArgs(request, votes.votes(request.id)) : request.data?.args,
    argsHash: argsHash(currentArgs(request, rulesOf(request) ? votes.votes(request.id) : [])),
    approval: kept ? approvalView(votes, kept) : null,
  };
}

/** Whether `approver` may decide the request now; for a personal link. */
export function checkApprover(
  deps: { store: RunStore; votes: VoteStore; directory: ApproverDirectory },
  ask: { runId: string; requestId: string; approver: string; now: number },
): ApproverCheck {
  const { runId, requestId, approver, now } = ask;
  const run = deps.store.run(runId);
  if (!run) {
    return { ok: false, code: "run_not_found", message: `no run ${runId}` };
  }
  const request = openRequests(deps.store, run).find((r) => r.id === requestId);
  if (!request || deps.store.decision(requestId)) {
    const settled = deps.store.decision(requestId) || run.status !== "pending";
    return settled && (request || deps.votes.approval(requestId) || run.pending)
      ? {
          ok: false,
          code: "request_not_pending",
          message: `request ${requestId} is no longer pending`,
        }
      : { ok: false, code: "request_not_found", message: `no request ${requestId}` };
  }
  const member = deps.directory.resolve(approver);
  const rules = rulesOf(request);
  if (rules) {
    deps.directory.checkRules(rules, {
      agent: askingAgentOf(request, run.agent),
      tool: toolOf(request),
    });
    const approval = deps.votes.approval(request.id);
    const escalated = approval?.escalateAt != null && approval.escalateAt <= now;
    if (!eligibleMembers(rules, deps.directory, escalated).has(member)) {
      return {
        ok: false,
        code: "not_an_approver",
        message: `${approver} may not decide request ${requestId}`,
      };
    }
    if (run.requestedBy && deps.directory.resolve(run.requestedBy) === member) {
      return {
        ok: false,
        code: "own_request",
        message: `${approver} asked for this and may not decide it`,
      };
    }
  }
  return { ok: true, member, expiresAt: run.expiresAt };
}
