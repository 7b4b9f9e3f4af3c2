/**
 * The ledger's receipt hook: every decision the thread inserts (a person's, a quorum's, an
 * expiry, a policy's, a cancel) appends its receipt in the same transaction, so a decision
 * never commits without one. The request's agent version is the run's, recorded at each
 * suspension, or for a request asked again after a deploy the version that asked it
 * (../versions/request-version.ts).
 */
import type { DecisionListener, RunStore } from "../storage/run-store";
import type { VoteStore } from "../storage/vote-store";
import type { ReceiptOutbox } from "../outbox/receipts";
import { receiptDraft } from "./draft";
import { requestVersion } from "../versions/request-version";

/** Runs stored before versions were recorded (schema v8) have none. */
export const UNRECORDED_VERSION = "unrecorded";

export function receiptRecorder(deps: {
  store: RunStore;
  votes: VoteStore;
  outbox: ReceiptOutbox;
  now?: () => number;
}): DecisionListener {
  return (decision, request) => {
    const run = deps.store.requireRun(decision.runId);
    const receipts = deps.outbox.receipts;
    if (!receipts) {
      throw new Error(`run ${run.runId} decided in an object that has no run`);
    }
    const draft = receiptDraft({
      run,
      request,
      decision,
      votes: deps.votes.votes(request.id),
      agentVersion: requestVersion(deps.store, run, request) ?? UNRECORDED_VERSION,
    });
    receipts.append(draft, new Date(deps.now?.() ?? decision.decidedAt));
  };
}
