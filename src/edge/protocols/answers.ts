/**
 * Answering a run's request from a chat protocol: through the thread's one ledger (the
 * object's `decide`), with the caller as `decidedBy` and the protocol as the channel.
 * Everything is checked before anything is written, in the ledger's order (§6): unknown →
 * 404, no longer pending → 409, not an approver / own request (an anonymous caller and a
 * request with rules included) → 403, a bad edit → 400 (the ledger's own check).
 */
import { statusOf } from "../http/status";
import type { ApproverGroupsInit } from "../approvals/groups";
import { type EdgeEnv, settings } from "../settings";
import { argsHash as versionOf } from "../../core/approvers/args-hash";
import { rulesOf } from "../../core/approvers/rules";
import { originalArgs } from "../../core/approvers/vote";
import type { Request } from "../../core/types";
import { ApiError } from "../http/errors";
import type { Channel, DecisionOutcome, ThreadRpc } from "../protocol";

export interface Answer {
  requestId: string;
  decision: "approve" | "decline" | "cancel";
  data?: unknown;
  reason?: string;
  /** Edited tool arguments (approve only; the rule must allow the edit). */
  args?: Record<string, unknown>;
  /** The version of the arguments the caller was shown (approve only): older is 409 args_changed. */
  argsHash?: string;
}

/** Where a request the caller cannot decide waits: the `data-toolnexus-waiting` payload. */
export interface Waiting {
  requestId: string;
  group: string | null;
  needed: number;
  votes: number;
  inboxUrl: string;
}

/** The run whose request is answered: its thread's stub and its id. */
export interface AnsweredRun {
  stub: ThreadRpc;
  runId: string;
}

/**
 * Throws the 404/409/403 an answer would get, without writing anything; returns the request,
 * or "repeat" when this caller already gave this decision (a retried request: nothing to do).
 */
export async function checkAnswerable(
  { stub, runId }: AnsweredRun,
  requestId: string,
  {
    user,
    intended,
    memberOf,
  }: {
    user: string | null;
    intended?: { decision: Answer["decision"]; channel: Channel };
    /**
     * The member id the ledger records for an identity (`ApproverDirectory.resolve`): a group
     * member's decision is stored under it (`bob`), not under the email they sign in with.
     */
    memberOf?: (identity: string) => string;
  },
): Promise<Request | "repeat"> {
  const described = await stub.describeRequest(runId, requestId);
  if (described.state === "unknown") {
    throw new ApiError(
      404,
      "request_not_found",
      `no open request ${requestId} in this conversation`,
    );
  }
  if (
    described.state === "decided" &&
    intended &&
    described.decision.decision === intended.decision &&
    described.decision.channel === intended.channel &&
    described.decision.decidedBy === (user === null ? intended.channel : (memberOf?.(user) ?? user))
  ) {
    return "repeat";
  }
  if (described.state !== "open") {
    throw new ApiError(409, "request_not_pending", `request ${requestId} is no longer pending`);
  }
  if (described.expiresAt && Date.parse(described.expiresAt) <= Date.now()) {
    throw new ApiError(
      409,
      "request_expired",
      `request ${requestId} expired at ${described.expiresAt}`,
    );
  }
  if (rulesOf(described.request)) {
    if (user === null) {
      throw new ApiError(
        403,
        "not_an_approver",
        `request ${requestId} has approver rules; an anonymous caller may not decide it (send x-toolnexus-user)`,
      );
    }
    const check = await stub.checkApprover(runId, requestId, user);
    if (!check.ok) {
      throw new ApiError(statusOf(check.code), check.code, check.message);
    }
  }
  return described.request;
}

/** `memberOf` for {@link checkAnswerable}: the directory the thread's ledger resolves with. */
export function memberOf(
  env: EdgeEnv,
  deps: { approverGroups?: ApproverGroupsInit | undefined },
): (identity: string) => string {
  return (identity) => settings(env).approvers(deps.approverGroups).resolve(identity);
}

/** Records the answer; a refusal becomes the ledger's status and code. */
export async function recordAnswer(
  { stub, runId }: AnsweredRun,
  answer: Answer,
  { user, channel }: { user: string | null; channel: Channel },
): Promise<Extract<DecisionOutcome, { ok: true }>> {
  const outcome = await stub.decide({
    runId,
    requestId: answer.requestId,
    decision: answer.decision,
    ...(answer.data === undefined ? {} : { data: answer.data }),
    ...(answer.reason === undefined ? {} : { reason: answer.reason }),
    ...(answer.args === undefined ? {} : { args: answer.args }),
    ...(answer.argsHash === undefined || answer.decision !== "approve"
      ? {}
      : { argsHash: answer.argsHash }),
    ...(user === null ? {} : { decidedBy: user }),
    channel,
  });
  if (!outcome.ok) {
    throw new ApiError(statusOf(outcome.code), outcome.code, {
      message: outcome.message,
      issues: outcome.issues?.map((message) => ({ path: "args", message })),
    });
  }
  return outcome;
}

/**
 * Whether this caller may decide the request (no rules, or an eligible member who did not
 * ask for it) and the version of its arguments they are shown (what their approval then
 * carries); otherwise where it waits, for the stream to say so. A request without rules
 * cannot be edited, so its version is its own arguments' (no round trip).
 */
export async function decidableBy(
  { stub, runId }: AnsweredRun,
  request: Request,
  { user, base }: { user: string | null; base: string },
): Promise<{ decidable: true; argsHash: string } | { decidable: false; waiting: Waiting }> {
  const rules = rulesOf(request);
  if (!rules) {
    return { decidable: true, argsHash: versionOf(originalArgs(request)) };
  }
  const described = await stub.describeRequest(runId, request.id);
  const open = described.state === "open" ? described : undefined;
  if (user !== null && (await stub.checkApprover(runId, request.id, user)).ok) {
    return {
      decidable: true,
      argsHash: open?.argsHash ?? versionOf(originalArgs(request)),
    };
  }
  const approval = open?.approval ?? null;
  return {
    decidable: false,
    waiting: {
      requestId: request.id,
      group: rules.group ?? null,
      needed: approval?.needed ?? rules.quorum ?? 1,
      votes: approval?.approvals ?? 0,
      inboxUrl: `${base}/inbox`,
    },
  };
}
