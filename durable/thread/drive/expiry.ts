/**
 * A request whose time ran out before anyone decided: the driver records the expiry as the
 * request's decision (with its inbox item settled), and applies it like any refusal.
 */
import type { Request } from "../../../src/core/types";
import { answerDeclined } from "../../../src/core/answers";
import type { DecisionRow, RunRow } from "../../storage/run-store";
import type { DriverDeps } from "./driver-deps";

export function recordExpiry(deps: DriverDeps, run: RunRow, request: Request): DecisionRow {
  const row = {
    requestId: request.id,
    runId: run.runId,
    decision: "expire" as const,
    answer: answerDeclined(request.id, "expired"),
    channel: "expiry" as const,
    decidedBy: "expiry",
    webhookId: null,
    decidedAt: deps.now(),
  };
  const decision = { ...row, appliedAt: null };
  deps.transaction(() => {
    deps.store.insertDecision(row, request);
    deps.inbox?.settled(run, request, decision);
  });
  return decision;
}
