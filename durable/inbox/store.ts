/**
 * One group's approvals inbox: a projection of requests kept by their threads. Every
 * write is an upsert guarded by the request's version, so deliveries may repeat or
 * arrive out of order and the inbox still converges on the newest state.
 *
 * Listing reads only the index and the page's rows: open requests oldest first (the one
 * waiting longest is on top), decided ones newest first.
 */
import { decodeInboxItem } from "../storage/decode";
import type { Sql } from "../storage/sql";
import { encodeCursor, type InboxCursor, type InboxItem } from "../../src/edge/inbox/item";
import type { InboxPage } from "../../src/edge/inbox/rpc";

export interface InboxQuery {
  status: "open" | "decided";
  limit: number;
  cursor?: InboxCursor;
}

export class InboxStore {
  #ready = false;

  constructor(private readonly sql: Sql) {}

  /** Creates the table on the first write only: an inbox nobody wrote to has no storage. */
  #migrate(): void {
    if (this.#ready) {
      return;
    }
    // Request ids are unique within a thread, not across threads: the key is run and request.
    this.sql`CREATE TABLE IF NOT EXISTS items (
      key TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      status TEXT NOT NULL,
      sort INTEGER NOT NULL,
      body TEXT NOT NULL
    )`;
    this.sql`CREATE INDEX IF NOT EXISTS items_listing ON items (status, sort, key)`;
    this.#ready = true;
  }

  #exists(): boolean {
    if (this.#ready) {
      return true;
    }
    const found = this.sql.one<{
      n: number;
    }>`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'items'`;
    this.#ready = Boolean(found?.n);
    return this.#ready;
  }

  /** Upserts each item unless a newer (or the same) version is stored. Returns how many changed. */
  apply(items: readonly InboxItem[]): number {
    this.#migrate();
    let changed = 0;
    for (const item of items) {
      changed += this.sql`
        INSERT INTO items (key, version, status, sort, body)
        VALUES (${itemKey(item.runId, item.requestId)}, ${item.version}, ${item.status}, ${sortKey(item)}, ${JSON.stringify(item)})
        ON CONFLICT (key) DO UPDATE SET
          version = excluded.version, status = excluded.status, sort = excluded.sort, body = excluded.body
        WHERE excluded.version > items.version
        RETURNING key`.length;
    }
    return changed;
  }

  list(query: InboxQuery): InboxPage {
    if (!this.#exists()) {
      return { items: [], nextCursor: null, rowsRead: 0 };
    }
    const after = query.cursor;
    const cursor = after
      ? this.sql.cursor<{ body: string; sort: number; key: string }>`
          SELECT body, sort, key FROM items
           WHERE status = ${query.status} AND (sort, key) > (${after.sort}, ${after.id})
           ORDER BY sort, key LIMIT ${query.limit + 1}`
      : this.sql.cursor<{ body: string; sort: number; key: string }>`
          SELECT body, sort, key FROM items WHERE status = ${query.status}
           ORDER BY sort, key LIMIT ${query.limit + 1}`;
    const rows = cursor.toArray();
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      // A large item's body is stored in parts: `value` puts it back together.
      items: page.map((r) => decodeInboxItem(this.sql.value(r.body))),
      nextCursor:
        rows.length > query.limit && last ? encodeCursor({ sort: last.sort, id: last.key }) : null,
      rowsRead: cursor.rowsRead,
    };
  }

  get(runId: string, requestId: string): InboxItem | undefined {
    if (!this.#exists()) {
      return undefined;
    }
    const row = this.sql.one<{
      body: string;
    }>`SELECT body FROM items WHERE key = ${itemKey(runId, requestId)}`;
    return row && decodeInboxItem(row.body);
  }
}

function itemKey(runId: string, requestId: string): string {
  return `${runId} ${requestId}`;
}

/** Open: oldest surfaced first. Decided: newest decision first (negated time sorts descending). */
function sortKey(item: InboxItem): number {
  if (item.status === "open") {
    return Date.parse(item.surfacedAt);
  }
  return -Date.parse(item.decision?.decidedAt ?? item.updatedAt);
}
