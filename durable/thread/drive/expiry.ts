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
    request_id: request.id,
    run_id: run.run_id,
    decision: "expire" as const,
    answer: JSON.stringify(answerDeclined(request.id, "expired")),
    channel: "expiry" as const,
    decided_by: "expiry",
    webhook_id: null,
    decided_at: deps.now(),
  };
  const decision = { ...row, applied_at: null };
  deps.transaction(() => {
    deps.store.insertDecision(row, request);
    deps.inbox?.settled(run, request, decision);
  });
  return decision;
}
