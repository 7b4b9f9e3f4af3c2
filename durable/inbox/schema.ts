/**
 * The inbox projection's tables. `items` holds each request's newest version plus the
 * columns listings filter and sort by (columns.ts), each with an index led by `status`;
 * `counts` keeps the number of items per status up to date through triggers, so the counts
 * on top of a listing cost two rows, not a scan of 10,000.
 *
 * An inbox written before the columns existed (issue 42) is upgraded the first time it is
 * touched: columns added, filled from each row's body, counts taken once.
 */
import { decodeInboxItem } from "../storage/decode";
import type { Sql } from "../storage/sql";
import { columnsOf } from "./columns";

const COLUMNS: Record<string, string> = {
  agent: "TEXT",
  tool: "TEXT",
  requested_by: "TEXT",
  expires: "INTEGER",
  surfaced: "INTEGER",
  search: "TEXT",
  decided_at: "INTEGER",
  decided_by: "TEXT",
  channel: "TEXT",
  outcome: "TEXT",
};

export function hasItemsTable(sql: Sql): boolean {
  const found = sql.one<{
    n: number;
  }>`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'items'`;
  return Boolean(found?.n);
}

/** Creates (or upgrades) the tables; safe to run again. */
export function migrateInbox(sql: Sql): void {
  // Request ids are unique within a thread, not across threads: the key is run and request.
  sql`CREATE TABLE IF NOT EXISTS items (
    key TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    sort INTEGER NOT NULL,
    body TEXT NOT NULL
  )`;
  sql`CREATE INDEX IF NOT EXISTS items_listing ON items (status, sort, key)`;
  const known = new Set(
    sql<{ name: string }>`SELECT name FROM pragma_table_info('items')`.map((c) => c.name),
  );
  const missing = Object.keys(COLUMNS).filter((name) => !known.has(name));
  for (const name of missing) {
    // Names and types from the constant above, never from input.
    sql.script(`ALTER TABLE items ADD COLUMN ${name} ${COLUMNS[name]}`);
  }
  if (missing.length > 0) {
    backfill(sql);
  }
  sql`CREATE INDEX IF NOT EXISTS items_surfaced ON items (status, surfaced, key)`;
  sql`CREATE INDEX IF NOT EXISTS items_expires ON items (status, expires, key)`;
  sql`CREATE INDEX IF NOT EXISTS items_agent ON items (status, agent, sort, key)`;
  sql`CREATE INDEX IF NOT EXISTS items_tool ON items (status, tool, sort, key)`;
  sql`CREATE INDEX IF NOT EXISTS items_requester ON items (status, requested_by, sort, key)`;
  createCounts(sql);
}

/** Fills the new columns of rows written before they existed. */
function backfill(sql: Sql): void {
  const rows = sql<{ key: string; body: string }>`SELECT key, body FROM items WHERE search IS NULL`;
  for (const row of rows) {
    const c = columnsOf(decodeInboxItem(row.body));
    sql`UPDATE items SET agent = ${c.agent}, tool = ${c.tool}, requested_by = ${c.requestedBy},
        expires = ${c.expires}, surfaced = ${c.surfaced}, search = ${c.search},
        decided_at = ${c.decidedAt}, decided_by = ${c.decidedBy}, channel = ${c.channel},
        outcome = ${c.outcome}
      WHERE key = ${row.key}`;
  }
}

function createCounts(sql: Sql): void {
  const exists = sql.one<{
    n: number;
  }>`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'counts'`;
  if (exists?.n) {
    return;
  }
  sql`CREATE TABLE counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL)`;
  sql`INSERT INTO counts (status, n) VALUES ('open', 0), ('decided', 0)`;
  sql`UPDATE counts SET n = (SELECT COUNT(*) FROM items WHERE items.status = counts.status)`;
  sql.script(`CREATE TRIGGER items_count_insert AFTER INSERT ON items BEGIN
    UPDATE counts SET n = n + 1 WHERE status = NEW.status;
  END`);
  sql.script(`CREATE TRIGGER items_count_update AFTER UPDATE OF status ON items
    WHEN OLD.status <> NEW.status BEGIN
    UPDATE counts SET n = n - 1 WHERE status = OLD.status;
    UPDATE counts SET n = n + 1 WHERE status = NEW.status;
  END`);
  sql.script(`CREATE TRIGGER items_count_delete AFTER DELETE ON items BEGIN
    UPDATE counts SET n = n - 1 WHERE status = OLD.status;
  END`);
}
