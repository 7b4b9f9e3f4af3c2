/**
 * The span for a wait on a person (or a policy): `await_decision {tool}` from the moment the
 * call suspended to the moment its answer was applied, possibly in another process. Its
 * outcome, who was asked and who decided are attributes under `toolnexus.request.*`.
 */
import type { Answer, Request } from "../types";
import { sha256 } from "../schema/sha256";
import type { Attributes, ContextLike, TracerLike } from "./otel-shapes";
import { SPAN_KIND } from "./otel-shapes";
import { AWAIT_DECISION, GEN_AI, TOOLNEXUS } from "./conventions";
import type { TracingOptions } from "./options";

export type WaitOutcome = "approved" | "declined" | "expired" | "cancelled";

/** `ok` ⇒ approved; the refusal reasons the contract names map to themselves; anything else (a policy's or a person's words) is a decline. */
export function waitOutcome(answer: Answer): WaitOutcome {
  if (answer.ok) {
    return "approved";
  }
  return answer.reason === "expired" || answer.reason === "cancelled" ? answer.reason : "declined";
}

export interface WaitEnd {
  request: Request;
  /** Absent: the wait ended without an answer (the run failed or was aborted). */
  answer?: Answer;
  since: number;
  until: number;
  tool?: string;
  callId?: string;
  decidedBy?: string;
  channel?: string;
}

/** What a wait span is made with: the client's tracer and its tracing options. */
export interface WaitTracing {
  tracer: TracerLike;
  options: TracingOptions;
}

export function recordWait(
  { tracer, options }: WaitTracing,
  parent: ContextLike | undefined,
  wait: WaitEnd,
): void {
  const tool = wait.tool ?? toolOf(wait.request) ?? wait.request.kind;
  const span = tracer.startSpan(
    `${AWAIT_DECISION} ${tool}`,
    {
      kind: SPAN_KIND.INTERNAL,
      startTime: wait.since,
      attributes: waitAttributes(options, wait, tool),
    },
    parent,
  );
  span.end(Math.max(wait.until, wait.since));
}

function waitAttributes(options: TracingOptions, wait: WaitEnd, tool: string): Attributes {
  const { request, answer } = wait;
  const rules = isRecord(request.data?.approvers) ? request.data.approvers : {};
  const attributes: Attributes = {
    [GEN_AI.toolName]: tool,
    [GEN_AI.toolCallId]: wait.callId,
    [GEN_AI.conversationId]: options.conversationId,
    [TOOLNEXUS.requestId]: request.id,
    [TOOLNEXUS.requestKind]: request.kind,
    [TOOLNEXUS.requestGroup]: typeof rules.group === "string" ? rules.group : undefined,
    [TOOLNEXUS.requestQuorum]: typeof rules.quorum === "number" ? rules.quorum : undefined,
    [TOOLNEXUS.requestExpiresAt]: request.expiresAt,
    [TOOLNEXUS.outcome]: answer ? waitOutcome(answer) : "cancelled",
    [TOOLNEXUS.channel]: wait.channel,
    [TOOLNEXUS.waitMs]: Math.max(0, wait.until - wait.since),
  };
  if (wait.decidedBy !== undefined && options.decider === "clear") {
    attributes[TOOLNEXUS.decidedBy] = wait.decidedBy;
  } else if (wait.decidedBy !== undefined && typeof options.decider === "object") {
    attributes[TOOLNEXUS.decidedByHash] = deciderHash(options.decider.salt, wait.decidedBy);
  }
  if (options.recordContent && answer && !answer.ok && answer.reason !== undefined) {
    attributes[TOOLNEXUS.reason] = answer.reason;
  }
  return attributes;
}

/** Hex SHA-256 of `salt`, NUL, `member`: stable per person under one salt, not reversible without it. */
export function deciderHash(salt: string, member: string): string {
  const digest = sha256(new TextEncoder().encode(`${salt}\u0000${member}`));
  let hex = "";
  for (const byte of digest) {
    hex += byte.toString(16).padStart(2, "0");
  }
  return hex;
}

function toolOf(request: Request): string | undefined {
  const tool = request.data?.tool;
  return typeof tool === "string" ? tool : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
