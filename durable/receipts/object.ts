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
import type { SignedReceipt } from "../../src/edge/receipts/receipt";
import { createSql } from "../storage/sql";
import {
  PendingVersionStore,
  type PendingByVersion,
  type PendingVersionState,
} from "../../src/edge/versions/pending-versions";
import { DisagreementStore, type DisagreementPage } from "../../src/edge/policy/disagreement-store";
import type { DisagreementEntry } from "../../src/edge/policy/run-tools";

export class ReceiptObject extends DurableObject<EdgeEnv> implements ReceiptRpc {
  readonly #store: ReceiptStore;
  /** Beside the receipts, fed the same way: how many runs wait under each agent version. */
  readonly #pending: PendingVersionStore;
  /** And the shadow policy's disagreements (issue 43). */
  readonly #disagreements: DisagreementStore;

  constructor(ctx: DurableObjectState, env: EdgeEnv) {
    super(ctx, env);
    const sql = createSql(ctx.storage.sql);
    this.#store = new ReceiptStore(sql);
    this.#pending = new PendingVersionStore(sql);
    this.#disagreements = new DisagreementStore(sql);
  }

  /** One thread's signed receipts, in chain order; the answer tells the outbox what to resend. */
  async accept(receipts: SignedReceipt[], pending?: PendingVersionState): Promise<AcceptResult> {
    return this.ctx.storage.transactionSync(() => {
      const result = this.#store.accept(receipts);
      if (pending) {
        this.#pending.put(pending);
      }
      return result;
    });
  }

  async page(query: ReceiptPageQuery): Promise<ReceiptPage> {
    return this.#store.page(query);
  }

  async putPendingVersion(state: PendingVersionState): Promise<void> {
    this.#pending.put(state);
  }

  async pendingByVersion(): Promise<PendingByVersion> {
    return this.#pending.byAgent();
  }

  async addDisagreement(entry: DisagreementEntry): Promise<void> {
    this.#disagreements.add(entry);
  }

  async disagreements(query: { cursor?: string; limit: number }): Promise<DisagreementPage> {
    return this.#disagreements.page(query);
  }
}
