/**
 * A tiny `SqlStorage` (the Durable Object SQL API: exec(query, ...bindings) → cursor
 * with toArray() / rowsRead / rowsWritten) over better-sqlite3, with write accounting:
 * - rows: SQLite's changes() per write statement, plus one per secondary or
 *   automatic index entry an INSERT or DELETE touches (how Durable Objects bill
 *   index writes; UPDATEs here never change an indexed column);
 * - payload bytes: the bound values of write statements (UTF-8 text, 8 per number);
 * - rows read: rows returned to the caller (a lower bound of what SQLite scanned).
 * Page-level bytes come from the WAL file (see durable-writes.mjs).
 */
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** More than one statement: a `;` followed by more SQL (the schema's DDL has no string literals with `;`). */
const isScript = (query) => /;\s*\S/.test(query);

export function openStorage(file) {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0");
  db.pragma("synchronous = NORMAL");
  const counters = { rowsWritten: 0, payloadBytes: 0, rowsRead: 0, statements: 0, writes: 0 };
  const statements = new Map();
  let indexes;
  const changes = db.prepare("SELECT changes() AS n");
  const indexCount = (query) => {
    indexes ??= new Map(
      db
        .prepare(
          "SELECT tbl_name AS t, count(*) AS n FROM sqlite_master WHERE type = 'index' GROUP BY tbl_name",
        )
        .all()
        .map((r) => [r.t.toLowerCase(), r.n]),
    );
    const table = /^\s*(?:INSERT\s+INTO|DELETE\s+FROM)\s+(\w+)/i.exec(query)?.[1]?.toLowerCase();
    return table ? (indexes.get(table) ?? 0) : 0;
  };
  const bytesOf = (v) =>
    typeof v === "string"
      ? Buffer.byteLength(v)
      : typeof v === "number" || typeof v === "bigint"
        ? 8
        : v instanceof ArrayBuffer || ArrayBuffer.isView(v)
          ? v.byteLength
          : 0;
  const bind = (v) => (v instanceof ArrayBuffer ? Buffer.from(v) : v);

  const storage = {
    exec(query, ...bindings) {
      if (bindings.length === 0 && isScript(query)) {
        // Several statements (the schema's DDL script): the Durable Object API runs them all.
        counters.statements += 1;
        db.exec(query);
        indexes = undefined;
        return {
          toArray: () => [],
          one: () => undefined,
          rowsRead: 0,
          rowsWritten: 0,
          columnNames: [],
        };
      }
      let stmt = statements.get(query);
      if (!stmt) {
        stmt = db.prepare(query);
        statements.set(query, stmt);
      }
      const values = bindings.map(bind);
      counters.statements += 1;
      let rows = [];
      let written = 0;
      if (stmt.reader) {
        rows = stmt.all(...values);
      } else {
        stmt.run(...values);
      }
      if (WRITE.test(query)) {
        const n = changes.get().n;
        written = n + n * indexCount(query);
        counters.rowsWritten += written;
        counters.writes += 1;
        counters.payloadBytes += bindings.reduce((sum, v) => sum + bytesOf(v), 0);
      } else if (/^\s*CREATE\b/i.test(query)) {
        indexes = undefined;
      }
      counters.rowsRead += rows.length;
      return {
        toArray: () => rows,
        one: () => rows[0],
        raw: () => rows.map((r) => Object.values(r))[Symbol.iterator](),
        columnNames: stmt.reader ? stmt.columns().map((c) => c.name) : [],
        rowsRead: rows.length,
        rowsWritten: written,
        [Symbol.iterator]: () => rows[Symbol.iterator](),
      };
    },
    get databaseSize() {
      return db.pragma("page_count", { simple: true }) * db.pragma("page_size", { simple: true });
    },
  };
  /** Nested calls become savepoints (better-sqlite3 handles that). */
  const transaction = (fn) => db.transaction(fn)();
  return { db, storage, transaction, counters };
}

/**
 * One phase as one commit (a Durable Object coalesces the writes made between I/O awaits):
 * the WAL truncated first, so its size after the commit is the pages written; returns what
 * the phase wrote and read, and its time.
 */
export async function measurePhase({ db, file, counters }, body) {
  db.pragma("wal_checkpoint(TRUNCATE)");
  const before = { ...counters };
  const t0 = performance.now();
  db.exec("BEGIN");
  try {
    await body();
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
  const elapsed = performance.now() - t0;
  const wal = fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0;
  return {
    rows: counters.rowsWritten - before.rowsWritten,
    bytes: counters.payloadBytes - before.payloadBytes,
    statements: counters.writes - before.writes,
    all: counters.statements - before.statements,
    read: counters.rowsRead - before.rowsRead,
    wal,
    ms: elapsed,
  };
}
