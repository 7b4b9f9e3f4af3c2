/**
 * Where the receipt routes read: a run's receipts from its thread's object, the export from
 * the receipts store (RECEIPTS), the keys from RECEIPT_KEY. Each checks its configuration
 * here, in the worker, so a missing key or binding is a `500 config_error` naming it.
 */
import { threadOf, threadStub } from "../http/threads";
import { receiptJwks, receiptKeys } from "./receipt-keys";
import type { ReceiptSources } from "./routes";
import { receiptStub } from "./rpc";

export const receiptSources: ReceiptSources = {
  async runReceipts(env, runId) {
    await receiptKeys(env.RECEIPT_KEY);
    const threadId = threadOf(runId);
    if (!threadId) {
      return null;
    }
    return (await threadStub(env, threadId).runReceipts(runId)) ?? null;
  },
  receiptPage: (env, query) => receiptStub(env).page(query),
  receiptKeys: async (env) => receiptJwks(await receiptKeys(env.RECEIPT_KEY)),
};
