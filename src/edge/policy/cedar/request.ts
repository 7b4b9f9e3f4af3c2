/**
 * An AuthZEN evaluation as a Cedar request (docs/policy.md, "Cedar"): principal `User::"<id>"`
 * (or `Thread::"<threadId>"`), action `Action::"call_tool"`, resource `Tool::"<tool>"`, and a
 * context with the call's `args`, `agent`, `argsHash`, the run's ids and the time
 * (`now: { day: "Friday", hour: 14 }`, UTC), so a policy can say "not on Fridays".
 */
import type { AuthorizationCall, CedarValueJson, Context } from "@cedar-policy/cedar-wasm/web";
import type { AccessEvaluation } from "../../../core/policy/types";

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export function cedarRequest(
  evaluation: AccessEvaluation,
  at: Date,
): Omit<AuthorizationCall, "policies" | "entities"> {
  const { subject, resource, context } = evaluation;
  const cedarContext: Context = {
    agent: resource.properties.agent,
    args: cedarValue(resource.properties.args) ?? {},
    argsHash: resource.properties.argsHash,
    runId: context.runId,
    threadId: context.threadId,
    agentVersion: context.agentVersion,
    now: { day: DAYS[at.getUTCDay()] ?? "Sunday", hour: at.getUTCHours() },
  };
  if (context.parentRunId) {
    cedarContext.parentRunId = context.parentRunId;
  }
  return {
    principal: { type: subject.type === "user" ? "User" : "Thread", id: subject.id },
    action: { type: "Action", id: "call_tool" },
    resource: { type: "Tool", id: resource.id },
    context: cedarContext,
  };
}

/**
 * JSON as a Cedar value: whole numbers are Longs, other numbers `decimal`s (four places),
 * arrays are sets, objects records; `null` members are left out (Cedar has no null).
 */
export function cedarValue(value: unknown): CedarValueJson | undefined {
  if (value === null || value === undefined) {
    return undefined;
  }
  if (typeof value === "number") {
    return Number.isSafeInteger(value)
      ? value
      : { __extn: { fn: "decimal", arg: value.toFixed(4) } };
  }
  if (typeof value === "string" || typeof value === "boolean") {
    return value;
  }
  if (Array.isArray(value)) {
    return value.map(cedarValue).filter((v) => v !== undefined);
  }
  if (typeof value === "object") {
    const record: Record<string, CedarValueJson> = {};
    for (const [key, member] of Object.entries(value)) {
      const converted = cedarValue(member);
      if (converted !== undefined) {
        record[key] = converted;
      }
    }
    return record;
  }
  return String(value);
}
