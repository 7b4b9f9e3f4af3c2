/**
 * The decision ledger's rules: a decision is applied at most once, whatever is
 * replayed. First decision wins; an identical repeat is a no-op (200); a different
 * one is a conflict (409). Cancel and decision: whichever the object records first wins.
 * A request with approver rules is decided by votes (`votes.ts`) once it is found.
 */
import type { Answer, Request } from "../../src/core/types";
import { answerDeclined, answerOutput } from "../../src/core/answers";
import { validateArgs } from "../../src/core/schema";
import { canonicalJson } from "../../src/edge/approvals/approval-token";
import type { DecisionInput, DecisionOutcome, DecisionView } from "../../src/edge/protocol";
import { quorumOf, rulesOf } from "../../src/core/approvers/rules";
import { settledEvent, type InboxOutbox } from "../outbox/inbox";
import type { ApproverDirectory } from "../../src/edge/approvals/groups";
import { castVote, expired, type EditCheck } from "./votes";
import { decisionView } from "../storage/decision-view";
import { openRequests } from "../storage/open-requests";
import { argsHash } from "../../src/core/approvers/args-hash";
import { originalArgs } from "../../src/core/approvers/vote";
import type { VoteStore } from "../storage/vote-store";
import { isMcpSignIn } from "../../src/edge/oauth/sign-in-request";
import type { RunRow, RunStore } from "../storage/run-store";
import { supersededRefusal, withLedgerArgs } from "./version-change";
import { argsInData } from "../../src/core/approvers/edit-fields";

export type { DecisionInput, DecisionOutcome, DecisionView };

export function answerFor(
  input: Pick<DecisionInput, "requestId" | "decision" | "data" | "reason">,
): Answer {
  switch (input.decision) {
    case "approve":
      return answerOutput(input.requestId, input.data);
    case "decline":
      return answerDeclined(input.requestId, input.reason ?? "declined");
    case "cancel":
      return answerDeclined(input.requestId, input.reason ?? "cancelled");
    case "revoke": // recorded by durable/undo/revoke.ts, never by this ledger pass
      return answerDeclined(input.requestId, input.reason ?? "revoked");
  }
}

/** What requests with rules need: their votes, the groups, and edits already checked. */
export interface RuledDeps {
  votes: VoteStore;
  directory: ApproverDirectory;
  /** Canonical JSON of edited arguments already checked against the tool. */
  checked?: string;
  /**
   * The arguments the agent's current version migrated this approval's to
   * (durable/versions/decision-check.ts): the settled answer carries them. Never from a caller.
   */
  migrated?: Record<string, unknown>;
}

/** The ledger's storage: the runs and decisions, and what requests with rules need. */
export interface LedgerDeps extends RuledDeps {
  store: RunStore;
}

/**
 * Applies the ledger rules; writes the decision when accepted. Synchronous, so it commits
 * atomically. Order of checks: unknown run/request 404 → no longer pending 409 → (rules)
 * not an approver / own request 403 → edited args 400.
 */
export function recordDecision(
  deps: LedgerDeps,
  input: DecisionInput,
  now: number,
): DecisionOutcome | EditCheck {
  const { store } = deps;
  const ruled = deps;
  const run = store.run(input.runId);
  if (!run) {
    return {
      ok: false,
      code: "run_not_found",
      message: `no run ${input.runId} in this thread`,
    };
  }
  if (input.decision === "revoke") {
    // Only the thread's decide takes a revoke (../undo/revoke.ts): it is no vote and no answer.
    return {
      ok: false,
      code: "request_not_decidable",
      message: "revoke is decided by the thread's decide, not the ledger's pass",
    };
  }
  const answer = answerFor(input);

  const existing = store.decision(input.requestId);
  if (existing) {
    if (existing.runId !== run.runId) {
      return {
        ok: false,
        code: "request_not_found",
        message: `request ${input.requestId} does not belong to run ${run.runId}`,
      };
    }
    // Asked again of other approvers after a deploy (./version-change.ts): its successor waits.
    const superseded = supersededRefusal(existing);
    if (superseded) {
      return superseded;
    }
    const kept = ruled.votes.approval(input.requestId);
    const keptRequest = kept?.request;
    if (keptRequest && rulesOf(keptRequest)) {
      return castVote(deps, { run, request: keptRequest, input, now, settled: existing });
    }
    const same =
      (existing.decision === input.decision &&
        canonicalJson(existing.answer) === canonicalJson(answer)) ||
      (input.webhookId !== undefined && existing.webhookId === input.webhookId);
    if (same) {
      return { ok: true, decision: decisionView(existing), duplicate: true };
    }
    if (existing.decision === "expire") {
      return {
        ok: false,
        code: "request_expired",
        message: `request ${input.requestId} expired`,
        decision: decisionView(existing),
      };
    }
    return {
      ok: false,
      code: "conflicting_decision",
      message: `request ${input.requestId} was already decided (${existing.decision} via ${existing.channel})`,
      decision: decisionView(existing),
    };
  }

  const request = findRequest(store, run, input.requestId);
  if (!request) {
    const surfaced =
      run.pending?.id === input.requestId || run.inlineRequest?.id === input.requestId;
    if (run.status !== "pending" && surfaced) {
      return {
        ok: false,
        code: "request_not_pending",
        message: `run ${run.runId} is ${run.status}; request ${input.requestId} is no longer pending`,
      };
    }
    return {
      ok: false,
      code: "request_not_found",
      message: `run ${run.runId} has no request ${input.requestId}`,
    };
  }
  const inline = run.inlineRequest?.id === request.id;
  if (run.status !== "pending" && !inline) {
    return {
      ok: false,
      code: "request_not_pending",
      message: `run ${run.runId} is ${run.status}`,
    };
  }
  if (rulesOf(request)) {
    // Expiry, too, is decided with the votes: a member's identical repeat stays a 200.
    return castVote(deps, { run, request, input, now });
  }
  if (expired(run, request, now)) {
    return {
      ok: false,
      code: "request_expired",
      message: `request ${request.id} expired`,
    };
  }
  const version = argsHash(originalArgs(request));
  if (input.decision === "approve" && input.argsHash !== undefined && input.argsHash !== version) {
    return {
      ok: false,
      code: "args_changed",
      message: `argsHash does not match the arguments of ${request.id}: review the current ones`,
      current: { args: originalArgs(request), argsHash: version },
    };
  }
  if (input.args !== undefined) {
    return {
      ok: false,
      code: "not_editable",
      message: `request ${request.id} has no approver rules, so its arguments cannot be edited`,
    };
  }
  // One way to edit (docs/security.md): the data sent with an approval never sets the arguments.
  const smuggled = input.decision === "approve" ? argsInData(request, input.data) : undefined;
  if (smuggled) {
    return { ok: false, code: "invalid_data", message: smuggled };
  }
  if (input.decision === "approve" && request.kind === "input") {
    const schema = request.data?.schema;
    if (schema && typeof schema === "object") {
      const checked = validateArgs(schema as Record<string, unknown>, input.data ?? {});
      if (!checked.ok) {
        return {
          ok: false,
          code: "invalid_data",
          message: "data does not match the request's schema",
          issues: checked.problems,
        };
      }
    }
  }

  const row = {
    requestId: request.id,
    runId: run.runId,
    decision: input.decision,
    answer: withLedgerArgs(answer, { request, migrated: deps.migrated }),
    channel: input.channel,
    // The member behind the identity, as with rules: one person is one name in the record.
    decidedBy: input.decidedBy
      ? ruled.directory.resolve(input.decidedBy)
      : defaultDecider(input.channel),
    webhookId: input.webhookId ?? null,
    decidedAt: now,
  };
  store.insertDecision(row, request);
  return {
    ok: true,
    decision: decisionView({ ...row, appliedAt: null }),
    duplicate: false,
  };
}

function findRequest(store: RunStore, run: RunRow, requestId: string): Request | undefined {
  return openRequests(store, run).find((r) => r.id === requestId);
}

function defaultDecider(channel: DecisionInput["channel"]): string | null {
  return channel === "page" ? "anonymous link" : channel === "webhook" ? null : channel;
}

/**
 * {@link recordDecision}, and the request's inbox row with it, in the caller's transaction
 * (the thread object's `decide`). Without approver rules the row changes once, when the
 * decision settles the request; with rules, every vote shows as it lands.
 */
export function recordDecisionInInbox(
  deps: LedgerDeps & { outbox: InboxOutbox },
  input: DecisionInput,
  now: number,
): DecisionOutcome | EditCheck {
  const { store, outbox } = deps;
  const run = store.run(input.runId);
  const request =
    run &&
    (openRequests(store, run).find((r) => r.id === input.requestId) ??
      deps.votes.approval(input.requestId)?.request);
  const recorded = recordDecision(deps, input, now);
  if (!run || !request || "checkEdit" in recorded || !recorded.ok || recorded.duplicate) {
    return recorded;
  }
  if (isMcpSignIn(request)) {
    return recorded; // the requester's own step: never in an approver group's inbox
  }
  const decision = store.decision(input.requestId);
  const rules = rulesOf(request);
  if (!rules) {
    if (decision) {
      outbox.record({ run, request }, { event: settledEvent(decision), decision }, now);
    }
    return recorded;
  }
  const votes = deps.votes.votes(request.id);
  const needed = quorumOf(rules);
  outbox.record(
    { run, request },
    decision
      ? { event: settledEvent(decision), decision, votes, needed }
      : { event: "vote", votes, needed },
    now,
  );
  return recorded;
}
