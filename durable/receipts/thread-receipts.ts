/**
 * A thread's receipts, kept in its Durable Object (durable/receipts/record.ts wires it into the ledger).
 *
 * Two steps, because the ledger decides inside one synchronous transaction and WebCrypto signs
 * asynchronously:
 * 1. `append` — in the decision's transaction: the draft gets its `seq` and `at`, so the
 *    receipt's content is fixed the moment the decision is.
 * 2. `signPending` — after it (the outbox delivery, or before a read): unsigned rows are signed
 *    in `seq` order, each `prev` the hash of the JWS before it. Signing is a pure function of
 *    the row, the previous JWS and the key (canonical JSON, deterministic Ed25519), and a row is
 *    written only while still unsigned, so two signers racing write the same thing once.
 *
 * One row per receipt; the chain keeps writes flat in the transcript's length.
 */
import type { ReceiptDraft, SignedReceipt } from "../../src/edge/receipts/receipt";
import type { ReceiptKey } from "../../src/edge/receipts/receipt-keys";
import { nextReceipt, receiptTime, signReceipt } from "../../src/edge/receipts/sign";
import { decodeReceiptDraft } from "../storage/decode";
import type { Sql } from "../storage/sql";
import { RECEIPTS_DDL } from "../storage/tables";

interface ReceiptRow extends Record<string, SqlStorageValue> {
  seq: number;
  runId: string;
  at: string;
  draft: string;
  jws: string | null;
}

export class ThreadReceipts {
  #ready = false;
  #appends = 0;

  constructor(
    private readonly sql: Sql,
    private readonly threadId: string,
  ) {}

  /** How many receipts this object appended so far (the outbox knows from it that none came since it looked). */
  get appends(): number {
    return this.#appends;
  }

  /** Idempotent; the first write calls it, so a thread without decisions has no receipts table. */
  migrate(): void {
    if (this.#ready) {
      return;
    }
    for (const ddl of RECEIPTS_DDL) {
      this.sql.script(ddl);
    }
    this.#ready = true;
  }

  /**
   * Records the receipt of a decision just applied (synchronous: call it in the decision's
   * transaction). Returns its `seq` and `at`.
   */
  append(draft: ReceiptDraft, now: Date): { seq: number; at: string } {
    this.migrate();
    this.#appends += 1;
    const last = this.sql.one<{ seq: number; at: string }>`
      SELECT seq, at FROM receipts ORDER BY seq DESC LIMIT 1`;
    // `prev` needs the head's JWS, which may not be signed yet: it is filled in at signing.
    const seq = (last?.seq ?? 0) + 1;
    const at = receiptTime(last?.at ?? null, now);
    this.sql`INSERT INTO receipts (seq, run_id, request_id, at, draft)
      VALUES (${seq}, ${draft.runId}, ${draft.requestId}, ${at}, ${JSON.stringify(draft)})`;
    return { seq, at };
  }

  /** Signs every unsigned receipt in order; returns those this call signed, for the outbox. */
  async signPending(key: ReceiptKey): Promise<SignedReceipt[]> {
    if (!this.#exists()) {
      return [];
    }
    const signed: SignedReceipt[] = [];
    for (;;) {
      const row = this.sql.one<ReceiptRow>`
        SELECT seq, run_id, at, draft, jws FROM receipts WHERE jws IS NULL ORDER BY seq LIMIT 1`;
      if (!row) {
        return signed;
      }
      // Rows are signed lowest first, so the one before is signed (or this is the first).
      const before = this.sql.one<{ jws: string | null }>`
        SELECT jws FROM receipts WHERE seq = ${row.seq - 1}`;
      if (row.seq > 1 && !before?.jws) {
        throw new Error(`receipt ${row.seq} of thread ${this.threadId} has no signed predecessor`);
      }
      const head = before?.jws ? { seq: row.seq - 1, jws: before.jws } : null;
      const receipt = nextReceipt(head, decodeReceiptDraft(row.draft), row.at);
      const jws = await signReceipt(receipt, key);
      // Still unsigned? (Another signer may have written it while this one awaited.) The JWS
      // carries the draft, so the draft's copy is dropped.
      const written = this.sql<{ seq: number }>`
        UPDATE receipts SET jws = ${jws}, draft = '' WHERE seq = ${row.seq} AND jws IS NULL RETURNING seq`;
      if (written.length > 0) {
        signed.push({ threadId: this.threadId, seq: row.seq, runId: row.runId, at: row.at, jws });
      }
    }
  }

  /** A run's signed receipts in chain order (`GET /v1/runs/:runId/receipts`). */
  forRun(runId: string): string[] {
    if (!this.#exists()) {
      return [];
    }
    return this.sql<{ jws: string }>`
      SELECT jws FROM receipts WHERE run_id = ${runId} AND jws IS NOT NULL ORDER BY seq`.map(
      (row) => row.jws,
    );
  }

  /** How many receipts a run has, signed or not yet (`receiptCount` in `GET /v1/runs/:id`). */
  count(runId: string): number {
    if (!this.#exists()) {
      return 0;
    }
    return (
      this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM receipts WHERE run_id = ${runId}`?.n ??
      0
    );
  }

  /** Signed receipts from `seq` on, for an outbox that resends what the store has not acknowledged. */
  signedFrom(seq: number, limit: number): SignedReceipt[] {
    if (!this.#exists()) {
      return [];
    }
    return this.sql<{ seq: number; runId: string; at: string; jws: string }>`
      SELECT seq, run_id, at, jws FROM receipts WHERE seq >= ${seq} AND jws IS NOT NULL
      ORDER BY seq LIMIT ${limit}`.map((row) => ({
      threadId: this.threadId,
      seq: row.seq,
      runId: row.runId,
      at: row.at,
      jws: row.jws,
    }));
  }

  #exists(): boolean {
    if (this.#ready) {
      return true;
    }
    const found = this.sql.one<{ n: number }>`
      SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'receipts'`;
    this.#ready = Boolean(found?.n);
    return this.#ready;
  }
}
