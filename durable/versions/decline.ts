/**
 * An approval arriving for a request the current agent version declines (a removed tool, a
 * schema that rejects the stored arguments, `onVersionChange: "decline"`, …): the request is
 * declined with the version check's reason (`agent_changed: …`) and recorded, so the run goes on
 * at once and the model hears why, instead of waiting for an approval nobody can give until the
 * request expires. The approval itself is not recorded (it was of what no longer runs): the
 * ledger writes a `decline` row on channel `version`, decided by nobody (the version check, as
 * ../ledger/version-change.ts does for a decision recorded before the deploy), with its receipt
 * and the inbox row settled, in one transaction. The approver is answered `409 agent_changed`
 * saying so (src/edge/http/status.ts).
 */
import { answerDeclined } from "../../src/core/answers";
import type { Request } from "../../src/core/types";
import type { DecisionOutcome } from "../../src/edge/protocol";
import { AGENT_CHANGED } from "../../src/edge/versions/version-check";
import { VERSION_CHANNEL } from "../ledger/version-change";
import { decisionView } from "../storage/decision-view";
import type { DecisionRow, RunRow } from "../storage/run-store";
import type { ThreadContext } from "../thread/context";

/** What the version check declines instead of an arriving approval. */
export interface VersionDecline {
  run: RunRow;
  request: Request;
  /** Why (`agent_changed: …`): the answer's reason, what the model and the receipt say. */
  reason: string;
  /** The version now deployed, which checked it. */
  version: string;
}

/**
 * Records the decline; undefined, writing nothing, when the request was decided (or the run
 * left pending) while the check ran: the ledger then answers the approval as always.
 */
export function recordVersionDecline(
  t: ThreadContext,
  plan: VersionDecline,
): { row: DecisionRow; refusal: Extract<DecisionOutcome, { ok: false }> } | undefined {
  const { request, reason, version } = plan;
  return t.state.storage.transactionSync(() => {
    const run = t.store.requireRun(plan.run.runId);
    if (t.store.decision(request.id) || run.status !== "pending") {
      return undefined;
    }
    const row = {
      requestId: request.id,
      runId: run.runId,
      decision: "decline" as const,
      answer: answerDeclined(request.id, reason),
      channel: VERSION_CHANNEL as typeof VERSION_CHANNEL,
      decidedBy: null, // the agent's version check, not a person
      webhookId: null,
      decidedAt: Date.now(),
    };
    const decision: DecisionRow = { ...row, appliedAt: null, agentVersion: version };
    // The receipt is the store's listener's, appended with the row (durable/receipts/record.ts).
    t.store.insertDecision(row, request);
    t.store.checkedUnder(request.id, version);
    t.votes.stopTimers(request.id);
    t.inbox.settled(run, request, decision);
    return {
      row: decision,
      refusal: {
        ok: false,
        code: AGENT_CHANGED,
        message: `${reason}: request ${request.id} is declined with this reason instead (recorded), and the run goes on without it`,
        decision: decisionView(decision),
      },
    };
  });
}
