/** A decision row as the API shows it (the ledger's audit trail in `GET /v1/runs/:id`). */
import type { DecisionView } from "../../src/edge/protocol";
import type { DecisionRow } from "./run-store";

export function decisionView(row: DecisionRow): DecisionView {
  return {
    requestId: row.requestId,
    decision: row.decision,
    answer: row.answer,
    channel: row.channel,
    decidedBy: row.decidedBy,
    webhookId: row.webhookId,
    decidedAt: new Date(row.decidedAt).toISOString(),
    appliedAt: row.appliedAt === null ? null : new Date(row.appliedAt).toISOString(),
    ...(row.onBehalfOf ? { onBehalfOf: row.onBehalfOf } : {}),
  };
}
