/**
 * Values too large for one SQLite row (docs/architecture.md §4, "How a large value is stored").
 * A Durable Object's SQLite refuses a string or row past ≈ 2 MiB (`SQLITE_TOOBIG`), so a bound
 * value longer than {@link INLINE_UNITS} is written as numbered parts in `value_chunks` and its
 * column holds a short reference instead: NUL, `chunked:`, the value's id. The parts are
 * written by the same synchronous step as the row that refers to them, so they commit or roll
 * back with it (a crash never leaves half a value); reading a row puts the value back together.
 *
 * A reference starts with NUL, which no value we keep starts with in practice; the one that
 * does is stored in parts too, so any stored text starting with NUL is a reference.
 *
 * Parts of a value whose row is deleted, or whose column is overwritten, go with it: triggers
 * on every text column of the object's tables (created with the first large value, and for
 * tables created later, with the next one). A write that changed no row (an upsert its
 * `WHERE` skipped) drops the parts it wrote at once.
 */

/** Longer strings (UTF-16 units) are stored in parts: at most 192 KiB of UTF-8 stays inline. */
export const INLINE_UNITS = 64 * 1024;
/** Units per part: at most 1.5 MiB of UTF-8, under the ≈ 2 MiB a row may hold. */
export const PART_UNITS = 512 * 1024;
/** The largest value (a model reply, a tool's output or arguments) kept, in UTF-8 bytes. Larger is `value_too_large`. */
export const MAX_VALUE_BYTES = 32 * 1024 * 1024;
/**
 * The most one stored column may hold: a value of {@link MAX_VALUE_BYTES} inside its row's JSON
 * (escapes included) fits; past it the write fails naming its table, whatever the value was.
 */
export const MAX_STORED_BYTES = 2 * MAX_VALUE_BYTES;

const MARK = "\u0000chunked:";
/** {@link MARK}'s UTF-8 bytes, for the triggers' SQL. */
const MARK_HEX = [...new TextEncoder().encode(MARK)]
  .map((byte) => byte.toString(16).padStart(2, "0"))
  .join("");

export const VALUE_CHUNKS_DDL = `CREATE TABLE IF NOT EXISTS value_chunks (
    value_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    part TEXT NOT NULL,
    PRIMARY KEY (value_id, seq)
  )`;

/** A value over {@link MAX_VALUE_BYTES}: nothing of the write that carried it is stored. */
export class ValueTooLargeError extends Error {
  readonly code = "value_too_large";
  constructor(
    /** What was too large, in words ("the output of tool read_file"). */
    readonly what: string,
    readonly size: number,
    readonly limit: number = MAX_VALUE_BYTES,
  ) {
    super(
      `${what} is ${size} bytes, over the limit of ${limit} bytes (${limit / 1024 / 1024} MiB)`,
    );
    this.name = "ValueTooLargeError";
  }
}

/**
 * Throws `value_too_large` when `value` (a string, or anything as its JSON) is over
 * {@link MAX_VALUE_BYTES}. Callers check only what they already know is long.
 */
export function checkValueSize(what: string, value: unknown): void {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  if (text.length <= MAX_VALUE_BYTES / 3) {
    return;
  }
  const size = utf8Bytes(text);
  if (size > MAX_VALUE_BYTES) {
    throw new ValueTooLargeError(what, size);
  }
}

/** Whether a string must be stored in parts: large, or starting with NUL (so it cannot pass for a reference). */
export function needsParts(value: string): boolean {
  return value.length > INLINE_UNITS || value.charCodeAt(0) === 0;
}

export function isReference(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(MARK);
}

/** UTF-8 bytes of `text`, counted without encoding it (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      bytes += 1;
    } else if (unit < 0x800) {
      bytes += 2;
    } else if (unit >= 0xd800 && unit < 0xdc00 && isLow(text.charCodeAt(i + 1))) {
      bytes += 4;
      i += 1;
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

const isLow = (unit: number) => unit >= 0xdc00 && unit < 0xe000;
const isHigh = (unit: number) => unit >= 0xd800 && unit < 0xdc00;

/** `text` cut into parts of at most {@link PART_UNITS}, never between the two halves of a surrogate pair. */
export function partsOf(text: string, size = PART_UNITS): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length && isHigh(text.charCodeAt(end - 1)) && end - 1 > start) {
      end -= 1;
    }
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}

/** Test seams: called after each part is written, inside the write's transaction. */
export interface LargeValueHooks {
  afterPart?: (seq: number) => void;
}

/**
 * Writes and reads values in parts over one object's SQLite. `store` is called only for a
 * value {@link needsParts} says is large, so rows of ordinary size cost nothing extra.
 */
export class LargeValues {
  #prepared = "";

  constructor(
    private readonly storage: SqlStorage,
    private readonly hooks: LargeValueHooks = {},
  ) {}

  /** Writes `value` in parts and returns the reference its row stores. `statement` names the table in an error. */
  store(value: string, statement: string): string {
    const size = value.length > MAX_STORED_BYTES / 3 ? utf8Bytes(value) : value.length;
    if (size > MAX_STORED_BYTES) {
      throw new ValueTooLargeError(
        `a value written to ${tableOf(statement)}`,
        size,
        MAX_STORED_BYTES,
      );
    }
    this.#prepare();
    const id = crypto.randomUUID();
    partsOf(value).forEach((part, seq) => {
      this.storage.exec(
        "INSERT INTO value_chunks (value_id, seq, part) VALUES (?, ?, ?)",
        id,
        seq,
        part,
      );
      this.hooks.afterPart?.(seq);
    });
    return `${MARK}${id}`;
  }

  /** The value a reference stands for. */
  load(reference: string): string {
    const parts = this.storage
      .exec<{ part: string }>(
        "SELECT part FROM value_chunks WHERE value_id = ? ORDER BY seq",
        reference.slice(MARK.length),
      )
      .raw();
    let value = "";
    for (const [part] of parts) {
      value += part as string;
    }
    return value;
  }

  /** Drops the parts of references a write stored but no row kept. */
  discard(references: readonly string[]): void {
    for (const reference of references) {
      this.storage.exec(
        "DELETE FROM value_chunks WHERE value_id = ?",
        reference.slice(MARK.length),
      );
    }
  }

  /**
   * The parts' table, and a pair of triggers per text column that drop a value's parts when
   * its row goes or its column is overwritten. One read per large value checks they are all
   * there: a table created since (a store that creates its table on its first write), or a
   * rolled-back transaction that took the table and triggers with it, makes it set them again.
   */
  #prepare(): void {
    if (this.#shape() === this.#prepared) {
      return;
    }
    this.storage.exec(VALUE_CHUNKS_DDL);
    const tables = this.storage
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name != 'value_chunks'",
      )
      .toArray()
      .map((row) => row.name);
    for (const table of tables) {
      const columns = this.storage
        .exec<{ name: string; type: string }>("SELECT name, type FROM pragma_table_info(?)", table)
        .toArray()
        .filter((c) => c.type.toUpperCase() === "TEXT" || c.type === "");
      for (const { name } of columns) {
        for (const ddl of cleanupTriggers(table, name)) {
          this.storage.exec(ddl);
        }
      }
    }
    this.#prepared = this.#shape();
  }

  /** How many tables the object has, and how many of our triggers: what `#prepare` last saw. */
  #shape(): string {
    const row = this.storage
      .exec<{ tables: number; triggers: number }>(
        "SELECT (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table') AS tables, (SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'value\\_chunks\\_%' ESCAPE '\\') AS triggers",
      )
      .one();
    return `${row.tables}/${row.triggers}`;
  }
}

/** The two triggers that drop a column's parts with its row or its old value. Names come from sqlite_master. */
function cleanupTriggers(table: string, column: string): string[] {
  // As bytes: SQLite's text functions stop at a NUL, and a reference starts with one.
  const bytes = (value: string) => `CAST(${value} AS BLOB)`;
  const isRef = (value: string) => `substr(${bytes(value)}, 1, ${MARK.length}) = X'${MARK_HEX}'`;
  const id = (value: string) => `CAST(substr(${bytes(value)}, ${MARK.length + 1}) AS TEXT)`;
  const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const base = `value_chunks_${table}_${column}`.replace(/[^A-Za-z0-9_]/g, "_");
  const old = `old.${q(column)}`;
  return [
    `CREATE TRIGGER IF NOT EXISTS ${base}_d AFTER DELETE ON ${q(table)}
      WHEN ${isRef(old)}
      BEGIN DELETE FROM value_chunks WHERE value_id = ${id(old)}; END`,
    `CREATE TRIGGER IF NOT EXISTS ${base}_u AFTER UPDATE OF ${q(column)} ON ${q(table)}
      WHEN ${isRef(old)} AND ${old} IS NOT new.${q(column)}
      BEGIN DELETE FROM value_chunks WHERE value_id = ${id(old)}; END`,
  ];
}

/** The table a write names, for an error message ("events"), else "storage". */
function tableOf(statement: string): string {
  return /\b(?:INSERT\s+INTO|UPDATE)\s+(\w+)/i.exec(statement)?.[1] ?? "storage";
}
