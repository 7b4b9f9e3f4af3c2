/**
 * The thread's receipt outbox: its receipts (ThreadReceipts) are the rows, and one cursor says
 * how far the receipts store has acknowledged them. `deliverReceipts` signs what the ledger
 * appended (after the decision's transaction: WebCrypto is async), then sends the signed ones
 * past the cursor in chain order; a failure leaves a retry time for the object's alarm.
 */
import type { ReceiptKey } from "../../src/edge/receipts/receipt-keys";
import type { AcceptResult } from "../../src/edge/receipts/receipt-store";
import type { SignedReceipt } from "../../src/edge/receipts/receipt";
import { ThreadReceipts } from "../receipts/thread-receipts";
import type { Sql } from "../storage/sql";

/** Receipts per delivery call; a longer backlog goes in the next round. */
export const RECEIPT_BATCH = 100;
const MAX_RETRY_MS = 5 * 60_000;

type DeliveryRow = { ackedSeq: number; attempts: number; retryAt: number | null };

export class ReceiptOutbox {
  #receipts: ThreadReceipts | undefined;
  /**
   * The cursor row as last read or written (undefined: not read yet, null: no row). Only
   * `ack` and `failed` write it, and this object is its storage's only writer (issue 46: it
   * was read ≈ 8 times per approval cycle).
   */
  #delivery: DeliveryRow | null | undefined;
  /** `receipts.appends` when `hasWork` last found nothing to do: no receipt came since. */
  #idleAt: number | undefined;
  /** Tables seen in sqlite_master: they stay once there (nothing drops them), as ThreadReceipts remembers `receipts`. */
  #tables = new Set<string>();

  /** `threadId` reads the thread's id from its runs: an object knows it only once it has one. */
  constructor(
    private readonly sql: Sql,
    private readonly threadId: () => string | undefined,
  ) {}

  /** The thread's receipts; undefined while the object has no run (so no decision either). */
  get receipts(): ThreadReceipts | undefined {
    if (!this.#receipts) {
      const threadId = this.threadId();
      if (threadId === undefined) {
        return undefined;
      }
      this.#receipts = new ThreadReceipts(this.sql, threadId);
    }
    return this.#receipts;
  }

  /** The highest `seq` the store acknowledged (0: none). */
  acked(): number {
    return this.#row()?.ackedSeq ?? 0;
  }

  /** When the alarm should retry a failed delivery; undefined when nothing failed. */
  retryAt(): number | undefined {
    return this.#row()?.retryAt ?? undefined;
  }

  ack(seq: number): void {
    this
      .sql`INSERT INTO receipt_delivery (id, acked_seq, attempts, retry_at) VALUES (1, ${seq}, 0, NULL)
      ON CONFLICT (id) DO UPDATE SET acked_seq = excluded.acked_seq, attempts = 0, retry_at = NULL`;
    this.#delivery = { ackedSeq: seq, attempts: 0, retryAt: null };
  }

  failed(now: number): void {
    const ackedSeq = this.acked();
    const attempts = (this.#row()?.attempts ?? 0) + 1;
    const retryAt = now + Math.min(MAX_RETRY_MS, 1000 * 2 ** Math.min(attempts, 12));
    this.sql`INSERT INTO receipt_delivery (id, acked_seq, attempts, retry_at)
      VALUES (1, ${ackedSeq}, ${attempts}, ${retryAt})
      ON CONFLICT (id) DO UPDATE SET attempts = excluded.attempts, retry_at = excluded.retry_at`;
    this.#delivery = { ackedSeq, attempts, retryAt };
  }

  /** Every receipt appended by the `appends`-th is signed and acknowledged (deliverReceipts). */
  settled(appends: number): void {
    this.#idleAt = appends;
  }

  /**
   * Whether any receipt waits to be signed or delivered (two indexed reads), answered
   * without reading when none was appended since it last found none.
   */
  hasWork(): boolean {
    const receipts = this.receipts;
    if (receipts === undefined || this.#idleAt === receipts.appends) {
      return false;
    }
    const appends = receipts.appends;
    const work = receipts.signedFrom(this.acked() + 1, 1).length > 0 || this.#unsigned();
    this.#idleAt = work ? undefined : appends;
    return work;
  }

  #unsigned(): boolean {
    if (!this.#exists("receipts")) {
      return false;
    }
    return (
      (this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM receipts WHERE jws IS NULL`?.n ?? 0) >
      0
    );
  }

  #row(): DeliveryRow | undefined {
    if (this.#delivery === undefined) {
      if (!this.#exists("receipt_delivery")) {
        return undefined; // no schema yet (a lazy object): read again once there is
      }
      this.#delivery =
        this.sql.one<DeliveryRow>`
        SELECT acked_seq, attempts, retry_at FROM receipt_delivery WHERE id = 1` ?? null;
    }
    return this.#delivery ?? undefined;
  }

  /**
   * Whether the table exists. Asked at every alarm arming (thread/alarms.ts, ≈ 20 times per
   * approval cycle): read from sqlite_master until it does, then remembered.
   */
  #exists(table: "receipts" | "receipt_delivery"): boolean {
    if (this.#tables.has(table)) {
      return true;
    }
    const found = this.sql.one<{ n: number }>`
      SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${table}`;
    if (found?.n) {
      this.#tables.add(table);
      return true;
    }
    return false;
  }
}

export interface ReceiptDeliveryDeps {
  outbox: ReceiptOutbox;
  /** The signing key (the first of `RECEIPT_KEY`); throws ConfigError when it is unset. */
  key(): Promise<ReceiptKey>;
  /** The receipts store's `accept`. */
  send(receipts: SignedReceipt[]): Promise<AcceptResult>;
  transaction(fn: () => void): void;
  now(): number;
}

/**
 * Signs and delivers; returns how many receipts the store newly stored. Throws on failure
 * after recording the retry time (the caller reports it).
 */
export async function deliverReceipts(deps: ReceiptDeliveryDeps, rounds = 10): Promise<number> {
  const { outbox } = deps;
  const receipts = outbox.receipts;
  if (!receipts || !outbox.hasWork()) {
    return 0;
  }
  let stored = 0;
  try {
    const appends = receipts.appends; // what this delivery covers: later ones are asked for again
    await receipts.signPending(await deps.key());
    for (let round = 0; round < rounds; round += 1) {
      const from = outbox.acked() + 1;
      const batch = receipts.signedFrom(from, RECEIPT_BATCH);
      if (batch.length === 0) {
        outbox.settled(appends);
        break;
      }
      const result = await deps.send(batch);
      stored += result.stored;
      if (result.conflicts.length > 0) {
        // Never overwritten by the store; nothing a resend can fix: fail loudly, retry later.
        throw new Error(
          `receipts store holds other receipts at ${result.conflicts.map((c) => `${c.threadId}#${c.seq}`).join(", ")}`,
        );
      }
      const gap = result.gaps[0];
      // The store is behind (it lost what it acknowledged): resend from where it stands.
      const acked = gap ? gap.expected - 1 : (batch.at(-1)?.seq ?? from - 1);
      deps.transaction(() => outbox.ack(acked));
    }
    return stored;
  } catch (error) {
    deps.transaction(() => outbox.failed(deps.now()));
    throw error;
  }
}
