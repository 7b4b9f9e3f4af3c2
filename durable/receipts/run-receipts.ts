/**
 * `GET /v1/runs/:runId/receipts` from the run's thread: its receipts in chain order. A receipt
 * the ledger appended but the outbox has not signed yet is signed here first, so the answer
 * never lags the decision that made it (signing twice writes once: see ThreadReceipts).
 */
import { receiptKeys } from "../../src/edge/receipts/receipt-keys";
import type { ThreadContext } from "../thread/context";

export async function runReceipts(t: ThreadContext, runId: string): Promise<string[] | undefined> {
  if (!t.store.run(runId)) {
    return undefined;
  }
  const receipts = t.receipts.receipts;
  if (!receipts) {
    return [];
  }
  const [signing] = await receiptKeys(t.env.RECEIPT_KEY);
  if (signing) {
    await receipts.signPending(signing);
  }
  return receipts.forRun(runId);
}
