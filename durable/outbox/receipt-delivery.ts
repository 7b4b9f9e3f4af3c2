/**
 * Delivering the thread's receipts to the receipts store (binding RECEIPTS), from the same
 * delivery rounds as the inbox (outbox/delivery.ts): after every decision, drive, cancel and
 * alarm. Never throws: a failure is reported and left to the alarm (the outbox's retry time).
 */
import { receiptKeys } from "../../src/edge/receipts/receipt-keys";
import { receiptStub } from "../../src/edge/receipts/rpc";
import type { ThreadContext } from "../thread/context";
import { deliverReceipts } from "./receipts";
import type { PendingVersionState } from "../../src/edge/versions/pending-versions";

/**
 * With `pending` (the thread's pending agent version, due to be sent), the first `accept`
 * carries it; `carried` says whether one did.
 */
export async function deliverThreadReceipts(
  t: ThreadContext,
  pending?: PendingVersionState,
): Promise<{ stored: number; failed: boolean; carried: boolean }> {
  let carry = pending;
  let carried = false;
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
      send: async (receipts) => {
        const result = await receiptStub(t.env).accept(receipts, carry);
        if (carry) {
          t.pendingVersion.sent(carry);
          carried = true;
          carry = undefined;
        }
        return result;
      },
      transaction: (fn) => t.state.storage.transactionSync(fn),
      now: () => Date.now(),
    });
    return { stored, failed: false, carried };
  } catch (error) {
    t.report(new Error("receipts: delivery failed, retried by the alarm", { cause: error }), {
      source: "receipts",
      recoverable: true,
    });
    return { stored: 0, failed: true, carried }; // its retry time is stored: the round arms for it
  }
}

/** Checked before a decision is recorded: a decision always makes a receipt, so both must be there. */
export async function requireReceiptConfig(t: ThreadContext): Promise<void> {
  await receiptKeys(t.env.RECEIPT_KEY); // ConfigError naming RECEIPT_KEY
  receiptStub(t.env); // ConfigError naming RECEIPTS
}

/** The thread's pending agent version (outbox/pending-version.ts `due`) to the receipts store. */
export async function deliverPendingVersion(
  t: ThreadContext,
  state: PendingVersionState,
): Promise<void> {
  try {
    await receiptStub(t.env).putPendingVersion(state);
    t.pendingVersion.sent(state);
  } catch (error) {
    t.report(error, { source: "receipts", recoverable: true });
  }
}
