/**
 * Delivering the thread's receipts to the receipts store (binding RECEIPTS), from the same
 * delivery rounds as the inbox (outbox/delivery.ts): after every decision, drive, cancel and
 * alarm. Never throws: a failure is reported and left to the alarm (the outbox's retry time).
 */
import { receiptKeys } from "../../src/edge/receipts/receipt-keys";
import { receiptStub } from "../../src/edge/receipts/rpc";
import type { ThreadContext } from "../thread/context";
import { deliverReceipts } from "./receipts";

export async function deliverThreadReceipts(
  t: ThreadContext,
): Promise<{ stored: number; failed: boolean }> {
  try {
    const stored = await deliverReceipts({
      outbox: t.receipts,
      key: async () => {
        const [signing] = await receiptKeys(t.env.RECEIPT_KEY);
        if (!signing) {
          throw new Error("RECEIPT_KEY has no key");
        }
        return signing;
      },
      send: (receipts) => receiptStub(t.env).accept(receipts),
      transaction: (fn) => t.state.storage.transactionSync(fn),
      now: () => Date.now(),
    });
    return { stored, failed: false };
  } catch (error) {
    t.report(new Error("receipts: delivery failed, retried by the alarm", { cause: error }), {
      source: "receipts",
      recoverable: true,
    });
    return { stored: 0, failed: true }; // its retry time is stored: the round arms for it
  }
}

/** Checked before a decision is recorded: a decision always makes a receipt, so both must be there. */
export async function requireReceiptConfig(t: ThreadContext): Promise<void> {
  await receiptKeys(t.env.RECEIPT_KEY); // ConfigError naming RECEIPT_KEY
  receiptStub(t.env); // ConfigError naming RECEIPTS
}

/** The thread's pending agent version to the receipts store (outbox/pending-version.ts). */
export async function deliverPendingVersion(t: ThreadContext): Promise<void> {
  try {
    await t.pendingVersion.deliver((state) => receiptStub(t.env).putPendingVersion(state));
  } catch (error) {
    t.report(error, { source: "receipts", recoverable: true });
  }
}
