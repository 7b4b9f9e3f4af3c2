/**
 * A protocol caller answering a request of a run it started (A2A's decision part, MCP's
 * elicitation reply). It goes through the one ledger (the object's `decide` RPC), but only
 * after the checks that need no write: a request with approver rules is never the caller's
 * to decide (whoever started a run is its requester, and may not approve their own ruled
 * request), so it is refused before the ledger sees it, naming who decides. Nothing is
 * written for a refusal.
 */
import { statusOf } from "../http/status";
import { isRemoteTaskRequest } from "../../core/a2a/remote-task";
import { rulesOf } from "../../core/approvers/rules";
import type { Request as AgentRequest } from "../../core/types";
import type { Channel, DecisionOutcome, RunView, ThreadRpc } from "../protocol";
import { sameCaller } from "./caller";

export interface CallerAnswer {
  requestId: string;
  decision: "approve" | "decline" | "cancel";
  reason?: string;
  data?: unknown;
  args?: Record<string, unknown>;
  /** The version of the arguments the caller saw (the data part's `argsHash`). */
  argsHash?: string;
}

export type AnswerRefusal =
  | "unknown_run"
  | "not_your_run"
  | "unknown_request"
  | "already_decided"
  | "not_pending"
  | "group_decides"
  | "invalid";

export type AnswerOutcome =
  | { ok: true; outcome: Extract<DecisionOutcome, { ok: true }> }
  | { ok: false; code: AnswerRefusal; message: string };

/** Names who decides a ruled request, for the refusal's message. */
export function whoDecides(request: AgentRequest): string {
  const rules = rulesOf(request);
  const parts: string[] = [];
  if (rules?.group !== undefined) {
    parts.push(`group ${JSON.stringify(rules.group)}`);
  }
  if (rules?.anyOf?.length) {
    parts.push(rules.anyOf.map((who) => JSON.stringify(who)).join(", "));
  }
  return parts.join(" or ") || "its approvers";
}

/** Is this request one the run's own caller may answer (no approver rules)? */
export const callerMayAnswer = (request: AgentRequest): boolean => rulesOf(request) === undefined;

/** `caller` answers `run`'s request through `channel` (the protocol it came in by). */
export async function answerRequest(
  { stub, run }: { stub: ThreadRpc; run: RunView },
  answer: CallerAnswer,
  { caller, channel }: { caller: string | undefined; channel: Channel },
): Promise<AnswerOutcome> {
  if (!sameCaller(run.requestedBy, caller)) {
    return {
      ok: false,
      code: "not_your_run",
      message: `run ${run.runId} was started by another identity; only its requester may answer it here`,
    };
  }
  const described = await stub.describeRequest(run.runId, answer.requestId);
  switch (described.state) {
    case "unknown":
      return {
        ok: false,
        code: "unknown_request",
        message: `run ${run.runId} has no open request ${answer.requestId}`,
      };
    case "closed":
      return {
        ok: false,
        code: "not_pending",
        message: `run ${run.runId} is ${described.status}: it waits on no request`,
      };
    case "decided":
      return {
        ok: false,
        code: "already_decided",
        message: `request ${answer.requestId} was already answered (${described.decision.decision} through ${described.decision.channel})`,
      };
    case "open":
      break;
  }
  if (isRemoteTaskRequest(described.request)) {
    return {
      ok: false,
      code: "not_pending",
      message: `request ${answer.requestId} waits on a remote A2A task: it is answered when that task finishes`,
    };
  }
  if (!callerMayAnswer(described.request)) {
    return {
      ok: false,
      code: "group_decides",
      message: `request ${answer.requestId} has approver rules: it is decided by ${whoDecides(described.request)}, not by the caller that started the run (own request); the task waits until they decide`,
    };
  }
  const outcome = await stub.decide({
    runId: run.runId,
    requestId: answer.requestId,
    decision: answer.decision,
    ...(answer.data === undefined ? {} : { data: answer.data }),
    ...(answer.reason === undefined ? {} : { reason: answer.reason }),
    ...(answer.args === undefined ? {} : { args: answer.args }),
    ...(answer.argsHash === undefined ? {} : { argsHash: answer.argsHash }),
    ...(caller === undefined ? {} : { decidedBy: caller }),
    channel,
  });
  if (!outcome.ok) {
    const status = statusOf(outcome.code);
    const code: AnswerRefusal =
      status === 404
        ? "unknown_request"
        : status === 409
          ? "already_decided"
          : status === 403
            ? "group_decides"
            : "invalid";
    const issues = outcome.issues?.length ? `: ${outcome.issues.join("; ")}` : "";
    return { ok: false, code, message: `${outcome.message}${issues}` };
  }
  if (outcome.duplicate) {
    return {
      ok: false,
      code: "already_decided",
      message: `request ${answer.requestId} was already answered`,
    };
  }
  return { ok: true, outcome };
}
