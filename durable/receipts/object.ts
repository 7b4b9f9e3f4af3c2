/**
 * The receipts of every thread (binding `RECEIPTS`, one object named "receipts"): a copy fed
 * by each thread's receipt outbox, so `GET /v1/receipts` never scans a thread. The threads
 * keep the truth; this store accepts each chain in order only (ReceiptStore).
 */
import { DurableObject } from "cloudflare:workers";
import type { EdgeEnv } from "../../src/edge/settings";
import type { ReceiptRpc } from "../../src/edge/receipts/rpc";
import {
  ReceiptStore,
  type AcceptResult,
  type ReceiptPage,
  type ReceiptPageQuery,
} from "../../src/edge/receipts/receipt-store";
import type { SignedReceipt } from "../../src/edge/receipts/thread-receipts";
import { createSql } from "../storage/sql";

export class ReceiptObject extends DurableObject<EdgeEnv> implements ReceiptRpc {
  readonly #store: ReceiptStore;

  constructor(ctx: DurableObjectState, env: EdgeEnv) {
    super(ctx, env);
    this.#store = new ReceiptStore(createSql(ctx.storage.sql));
  }

  /** One thread's signed receipts, in chain order; the answer tells the outbox what to resend. */
  async accept(receipts: SignedReceipt[]): Promise<AcceptResult> {
    return this.ctx.storage.transactionSync(() => this.#store.accept(receipts));
  }

  async page(query: ReceiptPageQuery): Promise<ReceiptPage> {
    return this.#store.page(query);
  }
}
