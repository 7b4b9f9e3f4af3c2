/**
 * The receipts of every thread, for `GET /v1/receipts` (the lead decides the object it lives
 * in; suggested: one `ReceiptObject`, binding `RECEIPTS`, fed by each thread's outbox like the
 * inbox is). A thread's object is never scanned at read time: this store holds a copy.
 *
 * Each thread's receipts are accepted in chain order only (`seq` one past the thread's last
 * here): a delivery that arrives early is refused as a gap and retried by the outbox, so the
 * export, in arrival order, always has every thread's receipts in chain order. A repeat is
 * acknowledged without a write.
 */
import type { SignedReceipt } from "./receipt";
import type { ReceiptSql } from "./sql";

export interface AcceptResult {
  /** Newly stored. */
  stored: number;
  /** Already here, the same JWS (a redelivery): acknowledge. */
  repeated: number;
  /** Not the next of its thread: the outbox should retry from `expected`. */
  gaps: Array<{ threadId: string; seq: number; expected: number }>;
  /** The same place in a chain with another JWS: never overwritten; report it. */
  conflicts: Array<{ threadId: string; seq: number }>;
}

export interface ReceiptPageQuery {
  /** Epoch milliseconds: receipts at or after this time. */
  since?: number;
  /** 1–1000. */
  limit: number;
  cursor?: string;
  /** Only this thread's receipts (its whole chain, in order): one conversation's export. */
  threadId?: string;
}

export interface ReceiptPage {
  receipts: string[];
  /** Null on the last page. */
  nextCursor: string | null;
}

export const MAX_RECEIPT_PAGE = 1000;

export class ReceiptStore {
  #ready = false;

  constructor(private readonly sql: ReceiptSql) {}

  migrate(): void {
    if (this.#ready) {
      return;
    }
    this.sql`CREATE TABLE IF NOT EXISTS receipts (
      pos INTEGER PRIMARY KEY AUTOINCREMENT,
      thread_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      at_ms INTEGER NOT NULL,
      jws TEXT NOT NULL,
      UNIQUE (thread_id, seq)
    )`;
    this.sql`CREATE INDEX IF NOT EXISTS receipts_at ON receipts (at_ms)`;
    this.#ready = true;
  }

  /** Stores what is next in its chain (synchronous, so one call commits as one transaction). */
  accept(receipts: readonly SignedReceipt[]): AcceptResult {
    this.migrate();
    const result: AcceptResult = { stored: 0, repeated: 0, gaps: [], conflicts: [] };
    for (const receipt of receipts) {
      const existing = this.sql.one<{ jws: string }>`
        SELECT jws FROM receipts WHERE thread_id = ${receipt.threadId} AND seq = ${receipt.seq}`;
      if (existing) {
        if (existing.jws === receipt.jws) {
          result.repeated++;
        } else {
          result.conflicts.push({ threadId: receipt.threadId, seq: receipt.seq });
        }
        continue;
      }
      const last =
        this.sql.one<{ seq: number | null }>`
          SELECT MAX(seq) AS seq FROM receipts WHERE thread_id = ${receipt.threadId}`?.seq ?? 0;
      if (receipt.seq !== last + 1) {
        result.gaps.push({ threadId: receipt.threadId, seq: receipt.seq, expected: last + 1 });
        continue;
      }
      this.sql`INSERT INTO receipts (thread_id, seq, at_ms, jws)
        VALUES (${receipt.threadId}, ${receipt.seq}, ${Date.parse(receipt.at)}, ${receipt.jws})`;
      result.stored++;
    }
    return result;
  }

  /** One page in arrival order; `cursor` continues the previous page of the same query. */
  page(query: ReceiptPageQuery): ReceiptPage {
    if (!this.#exists()) {
      return { receipts: [], nextCursor: null };
    }
    const limit = Math.min(Math.max(1, Math.trunc(query.limit)), MAX_RECEIPT_PAGE);
    let after = query.cursor === undefined ? 0 : (decodeReceiptCursor(query.cursor) ?? 0);
    const since = query.since ?? 0;
    const thread = query.threadId ?? null;
    if (since > 0) {
      // Start at the first receipt that recent (by the time index), not at the store's start.
      const first = this.sql.one<{ pos: number | null }>`
        SELECT MIN(pos) AS pos FROM receipts WHERE at_ms >= ${since}
        AND (${thread} IS NULL OR thread_id = ${thread})`?.pos;
      if (first === null || first === undefined) {
        return { receipts: [], nextCursor: null };
      }
      after = Math.max(after, first - 1);
    }
    // One more than asked, to know whether another page follows.
    const rows = this.sql<{ pos: number; jws: string }>`
      SELECT pos, jws FROM receipts WHERE pos > ${after} AND at_ms >= ${since}
      AND (${thread} IS NULL OR thread_id = ${thread})
      ORDER BY pos LIMIT ${limit + 1}`;
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      receipts: page.map((row) => row.jws),
      nextCursor: rows.length > limit && last ? encodeReceiptCursor(last.pos) : null,
    };
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

/** Cursors are opaque to clients: `r` and the position of the page's last receipt. */
export function encodeReceiptCursor(pos: number): string {
  return `r${pos}`;
}

/** The position a cursor names, or null when it is not one of ours. */
export function decodeReceiptCursor(cursor: string): number | null {
  const match = /^r([1-9][0-9]{0,14})$/.exec(cursor);
  return match ? Number(match[1]) : null;
}
