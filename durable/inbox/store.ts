/**
 * One group's approvals inbox: a projection of requests kept by their threads. Every
 * write is an upsert guarded by the request's version, so deliveries may repeat or
 * arrive out of order and the inbox still converges on the newest state.
 *
 * Listing reads only an index and the page's rows: open requests oldest first (the one
 * waiting longest is on top), decided ones newest first, or by expiry / surfacing time,
 * optionally filtered by agent, tool, requester or text (schema.ts has the indexes).
 */
import { decodeInboxItem } from "../storage/decode";
import type { Sql } from "../storage/sql";
import type { InboxItem } from "../../src/edge/inbox/item";
import {
  encodeCursor,
  foldText,
  hasFilters,
  type InboxListQuery,
  type InboxSort,
} from "../../src/edge/inbox/find/listing";
import type { InboxCounts, InboxPage } from "../../src/edge/inbox/rpc";
import { columnsOf } from "./columns";
import { hasItemsTable, migrateInbox } from "./schema";
import { statement } from "./statement";
import { readStats } from "./stats-query";
import { emptyStats, type InboxStats } from "../../src/edge/inbox/dashboard/stats";

export interface InboxQuery extends InboxListQuery {
  /** Put into the page's `nextCursor` (listing.ts): which listing the cursor continues. */
  fingerprint?: string;
}

/** The column each order reads, ascending; all are integers so cursors stay `[number, key]`. */
const ORDER_COLUMN: Record<InboxSort, string> = {
  default: "sort",
  expires: "expires",
  surfaced: "surfaced",
};

export class InboxStore {
  #ready = false;

  /**
   * `transaction` runs an upgrade found on a read atomically (writes already run inside the
   * object's transaction): columns added and filled together, or not at all.
   */
  constructor(
    private readonly sql: Sql,
    private readonly transaction: (fn: () => void) => void = (fn) => fn(),
  ) {}

  /** Creates the tables on the first write only: an inbox nobody wrote to has no storage. */
  #migrate(): void {
    if (!this.#ready) {
      migrateInbox(this.sql);
      this.#ready = true;
    }
  }

  /** Whether there is anything to read; an inbox from before the filter columns is upgraded first. */
  #exists(): boolean {
    if (!this.#ready && hasItemsTable(this.sql)) {
      this.transaction(() => migrateInbox(this.sql));
      this.#ready = true;
    }
    return this.#ready;
  }

  /** Upserts each item unless a newer (or the same) version is stored. Returns how many changed. */
  apply(items: readonly InboxItem[]): number {
    this.#migrate();
    let changed = 0;
    for (const item of items) {
      const c = columnsOf(item);
      changed += this.sql`
        INSERT INTO items (key, version, status, sort, body, agent, tool, requested_by, expires,
                           surfaced, search, decided_at, decided_by, channel, outcome)
        VALUES (${itemKey(item.runId, item.requestId)}, ${item.version}, ${item.status}, ${sortKey(item)},
                ${JSON.stringify(item)}, ${c.agent}, ${c.tool}, ${c.requestedBy}, ${c.expires},
                ${c.surfaced}, ${c.search}, ${c.decidedAt}, ${c.decidedBy}, ${c.channel}, ${c.outcome})
        ON CONFLICT (key) DO UPDATE SET
          version = excluded.version, status = excluded.status, sort = excluded.sort, body = excluded.body,
          agent = excluded.agent, tool = excluded.tool, requested_by = excluded.requested_by,
          expires = excluded.expires, surfaced = excluded.surfaced, search = excluded.search,
          decided_at = excluded.decided_at, decided_by = excluded.decided_by,
          channel = excluded.channel, outcome = excluded.outcome
        WHERE excluded.version > items.version
        RETURNING key`.length;
    }
    return changed;
  }

  list(query: InboxQuery): InboxPage {
    if (!this.#exists()) {
      return { items: [], nextCursor: null, rowsRead: 0 };
    }
    const order = ORDER_COLUMN[query.sort ?? "default"];
    const where = filterClause(query);
    const after = query.cursor
      ? statement`AND (${{ raw: order }}, key) > (${query.cursor.sort}, ${query.cursor.id})`
      : statement``;
    const text = statement`SELECT body, ${{ raw: order }} AS position, key FROM items
      WHERE ${where} ${after} ORDER BY ${{ raw: order }}, key LIMIT ${query.limit + 1}`;
    const cursor = this.sql.cursor<{ body: string; position: number; key: string }>(
      text.strings,
      ...text.values,
    );
    const rows = cursor.toArray();
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const next =
      rows.length > query.limit && last
        ? encodeCursor({
            sort: last.position,
            id: last.key,
            ...(query.fingerprint === undefined ? {} : { fp: query.fingerprint }),
          })
        : null;
    return {
      // A large item's body is stored in parts: `value` puts it back together.
      items: page.map((r) => decodeInboxItem(this.sql.value(r.body))),
      nextCursor: next,
      rowsRead: cursor.rowsRead,
    };
  }

  /**
   * Items per status (kept by triggers: two rows), and how many of `query.status` match its
   * filters (an index range, or a scan of the status's rows for `q`); `rowsRead` is the cost.
   */
  counts(query: InboxListQuery): InboxCounts {
    if (!this.#exists()) {
      return { open: 0, decided: 0, matching: 0, rowsRead: 0 };
    }
    const totals = this.sql.cursor<{ status: string; n: number }>`SELECT status, n FROM counts`;
    const byStatus = new Map(totals.toArray().map((r) => [r.status, r.n]));
    let rowsRead = totals.rowsRead;
    let matching = byStatus.get(query.status) ?? 0;
    if (hasFilters(query)) {
      const text = statement`SELECT COUNT(*) AS n FROM items WHERE ${filterClause(query)}`;
      const counted = this.sql.cursor<{ n: number }>(text.strings, ...text.values);
      matching = counted.toArray()[0]?.n ?? 0;
      rowsRead += counted.rowsRead;
    }
    return {
      open: byStatus.get("open") ?? 0,
      decided: byStatus.get("decided") ?? 0,
      matching,
      rowsRead,
    };
  }

  /** The dashboard's numbers for this group (stats-query.ts). */
  stats(now: number): InboxStats {
    if (!this.#exists()) {
      return emptyStats();
    }
    return readStats(this.sql, now);
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

/** `status = ? AND …` for the query's filters; every value bound, never spliced. */
function filterClause(query: InboxListQuery) {
  return statement`status = ${query.status}
    ${query.agent === undefined ? statement`` : statement`AND agent = ${query.agent}`}
    ${query.tool === undefined ? statement`` : statement`AND tool = ${query.tool}`}
    ${query.requestedBy === undefined ? statement`` : statement`AND requested_by = ${query.requestedBy.toLowerCase()}`}
    ${query.q === undefined ? statement`` : statement`AND instr(search, ${foldText(query.q)}) > 0`}`;
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
