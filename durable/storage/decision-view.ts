/** A decision row as the API shows it (the ledger's audit trail in `GET /v1/runs/:id`). */
import type { DecisionView } from "../../src/edge/protocol";
import { answerOfRow, type DecisionRow } from "./run-store";

export function decisionView(row: DecisionRow): DecisionView {
  return {
    requestId: row.request_id,
    decision: row.decision,
    answer: answerOfRow(row),
    channel: row.channel,
    decidedBy: row.decided_by,
    webhookId: row.webhook_id,
    decidedAt: new Date(row.decided_at).toISOString(),
    appliedAt: row.applied_at === null ? null : new Date(row.applied_at).toISOString(),
  };
}
