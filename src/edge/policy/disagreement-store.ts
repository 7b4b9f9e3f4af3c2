/**
 * Shadow-mode disagreements of every thread, for `GET /v1/policy/disagreements` (issue 43).
 * Kept in the receipts store's object (one `ReceiptObject`, binding `RECEIPTS`) beside the
 * receipts: it is already the one cross-thread audit store, so the list needs no new binding,
 * class or wrangler migration, and a security team reads both from one place. A thread sends
 * each disagreement there after the call (best effort: a failed send is logged; the run's
 * own `policy_shadow` event keeps it too).
 */
import type { ReceiptSql } from "../receipts/sql";
import type { DisagreementEntry } from "./run-tools";

export const MAX_DISAGREEMENT_PAGE = 200;

export interface DisagreementPage {
  items: DisagreementEntry[];
  /** Null on the last page. */
  nextCursor: string | null;
}

export class DisagreementStore {
  constructor(private readonly sql: ReceiptSql) {
    sql`CREATE TABLE IF NOT EXISTS policy_disagreements (pos INTEGER PRIMARY KEY AUTOINCREMENT, entry TEXT NOT NULL)`;
  }

  add(entry: DisagreementEntry): void {
    this.sql`INSERT INTO policy_disagreements (entry) VALUES (${JSON.stringify(entry)})`;
  }

  /** Oldest first; `cursor` continues the previous page. */
  page({ cursor, limit }: { cursor?: string; limit: number }): DisagreementPage {
    const after = cursor === undefined ? 0 : (decodeDisagreementCursor(cursor) ?? 0);
    const size = Math.min(Math.max(1, Math.trunc(limit)), MAX_DISAGREEMENT_PAGE);
    const rows = this.sql<{ pos: number; entry: string }>`
      SELECT pos, entry FROM policy_disagreements WHERE pos > ${after} ORDER BY pos LIMIT ${size + 1}`;
    const page = rows.slice(0, size);
    const last = page.at(-1);
    return {
      items: page.map((row) => JSON.parse(row.entry) as DisagreementEntry),
      nextCursor: rows.length > size && last ? `d${last.pos}` : null,
    };
  }
}

/** `d<pos>`, or undefined for anything else. */
export function decodeDisagreementCursor(cursor: string): number | undefined {
  const match = /^d([1-9][0-9]{0,15})$/.exec(cursor);
  return match ? Number(match[1]) : undefined;
}
