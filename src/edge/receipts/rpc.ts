/**
 * The receipts store as the worker and the threads see it: ONE `ReceiptObject` behind the
 * `RECEIPTS` binding (named like THREADS and INBOXES: the namespace of what it holds), fed by
 * every thread's receipt outbox and read by `GET /v1/receipts`.
 */
import { ConfigError } from "../settings";
import type { AcceptResult, ReceiptPage, ReceiptPageQuery } from "./receipt-store";
import type { SignedReceipt } from "./receipt";
import type { PendingByVersion, PendingVersionState } from "../versions/pending-versions";
import type { DisagreementPage } from "../policy/disagreement-store";
import type { DisagreementEntry } from "../policy/run-tools";

export interface ReceiptRpc {
  /**
   * With `pending`, the thread's pending agent version goes in the same transaction, as
   * `putPendingVersion` would (a round with receipts to deliver makes one call, not two).
   */
  accept(receipts: SignedReceipt[], pending?: PendingVersionState): Promise<AcceptResult>;
  page(query: ReceiptPageQuery): Promise<ReceiptPage>;
  /** A thread's pending agent version (the same object holds this projection: see ../versions/pending-versions.ts). */
  putPendingVersion(state: PendingVersionState): Promise<void>;
  pendingByVersion(): Promise<PendingByVersion>;
  /** Shadow-mode disagreements (issue 43; the same object holds them: ../policy/disagreement-store.ts). */
  addDisagreement(entry: DisagreementEntry): Promise<void>;
  disagreements(query: { cursor?: string; limit: number }): Promise<DisagreementPage>;
}

/** The one store's name: every thread delivers to it, so the export reads one object. */
export const RECEIPT_STORE_NAME = "receipts";

/** Fails like a missing variable (`500 config_error` naming it) when the binding is absent. */
export function receiptNamespace(env: object): DurableObjectNamespace {
  const namespace = (env as { RECEIPTS?: unknown }).RECEIPTS;
  if (!namespace || typeof (namespace as DurableObjectNamespace).idFromName !== "function") {
    throw new ConfigError(
      'RECEIPTS is not bound: add a Durable Object binding RECEIPTS (class_name = "ReceiptObject", exported by your worker) and a migration with new_sqlite_classes = ["ReceiptObject"] to wrangler.toml',
    );
  }
  return namespace as DurableObjectNamespace;
}

export function receiptStub(env: object): ReceiptRpc {
  const namespace = receiptNamespace(env);
  return namespace.get(namespace.idFromName(RECEIPT_STORE_NAME)) as unknown as ReceiptRpc;
}
