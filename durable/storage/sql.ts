/**
 * A small typed helper over the Durable Object's SQLite storage: a tagged template
 * that binds every interpolated value as a parameter (never spliced into SQL text), and
 * hands rows back with camelCase keys (`run_id` → `runId`): columns keep SQL's naming,
 * everything above storage sees the domain's. Writers that name columns from keys turn
 * them back with `columnOf`.
 */
import { isReference, LargeValues, needsParts, type LargeValueHooks } from "./large/values";

export type Row = Record<string, SqlStorageValue>;

export interface Sql {
  <T extends Row = Row>(strings: TemplateStringsArray, ...values: unknown[]): T[];
  one<T extends Row = Row>(strings: TemplateStringsArray, ...values: unknown[]): T | undefined;
  /** Rows written by the statement (for counting storage work). */
  run(strings: TemplateStringsArray, ...values: unknown[]): number;
  /** The raw cursor, for its `rowsRead` once consumed. */
  cursor<T extends Row = Row>(
    strings: TemplateStringsArray,
    ...values: unknown[]
  ): SqlStorageCursor<T>;
  /** Constant SQL text, one statement or several separated by `;` (the schema's DDL), never text built from input. */
  script(text: string): void;
  /** A column's text as stored, with a large value put back together (for rows read through `cursor`). */
  value(text: string): string;
  /**
   * UTF-16 units of text read so far (large values counted whole): an answer built from more
   * than src/edge/packed.ts `PACK_AT_UNITS` crosses the RPC boundary as a stream.
   */
  textRead(): number;
}

export interface SqlOptions {
  /** Test seams of the large-value store (an injected failure between two parts). */
  largeValues?: LargeValueHooks;
}

export function createSql(storage: SqlStorage, options: SqlOptions = {}): Sql {
  const large = new LargeValues(storage, options.largeValues);
  /**
   * Runs the statement and hands its cursor to `consume`. A value too large for a row is
   * stored in parts first (large/values.ts); if the write then kept no row, its parts go.
   */
  const exec = <T extends Row, R>(
    strings: TemplateStringsArray,
    values: unknown[],
    consume: (cursor: SqlStorageCursor<T>) => R,
  ): R => {
    const text = strings.join("?");
    const stored: string[] = [];
    const bound = values.map((value) => {
      const plain = bind(value);
      if (typeof plain !== "string" || !needsParts(plain) || isRead(text)) {
        return plain;
      }
      const reference = large.store(plain, text);
      stored.push(reference);
      return reference;
    });
    const cursor = storage.exec<T>(text, ...bound);
    if (stored.length === 0) {
      return consume(cursor);
    }
    const result = consume(cursor);
    if (cursor.rowsWritten === 0) {
      large.discard(stored);
    }
    return result;
  };
  const tally = { units: 0 };
  const rows = <T>(cursor: SqlStorageCursor<Row>) => camelRows<T>(cursor, { large, tally });
  const sql = (<T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    exec(strings, values, rows<T>)) as Sql;
  // Every row is read, as before: a statement with `RETURNING` finishes its writes only then.
  sql.one = <T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    exec(strings, values, rows<T>)[0];
  // Not read here: the caller's rows keep large values as references (`value` reads one).
  sql.cursor = <T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    exec<T, SqlStorageCursor<T>>(strings, values, (cursor) => cursor);
  sql.run = (strings: TemplateStringsArray, ...values: unknown[]) =>
    exec(strings, values, (cursor) => {
      cursor.toArray();
      return cursor.rowsWritten;
    });
  sql.script = (text: string) => {
    storage.exec(text).toArray();
  };
  sql.value = (text: string) => (isReference(text) ? large.load(text) : text);
  sql.textRead = () => tally.units;
  return sql;
}

/** A statement that only reads: its large bound values are compared, never stored in parts. */
function isRead(text: string): boolean {
  return /^\s*(SELECT|WITH)\b/i.test(text);
}

/**
 * {@link createSql} over storage whose schema is created by its first write: until then
 * (a fresh object, e.g. one a made-up run id addressed) every read answers "nothing there"
 * without touching storage, so such an object writes nothing at all. Storage that already
 * has a schema is brought up to date at once (`migrate` is idempotent).
 */
export function createLazySql(
  storage: SqlStorage,
  schema: { migrate: (sql: Sql) => void; hasSchema: (sql: Sql) => boolean },
  options: SqlOptions = {},
): Sql {
  const { migrate, hasSchema } = schema;
  const raw = createSql(storage, options);
  let ready = hasSchema(raw);
  if (ready) {
    migrate(raw);
  }
  /** True when the statement may run; false for a read of a schema that does not exist yet. */
  const prepare = (strings: TemplateStringsArray | readonly [string]): boolean => {
    if (ready) {
      return true;
    }
    if (/^\s*(SELECT|WITH)\b/i.test(strings[0] ?? "")) {
      return false;
    }
    migrate(raw); // the first write: the schema comes with it (same transaction, if any)
    ready = true;
    return true;
  };
  const sql = (<T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    prepare(strings) ? raw<T>(strings, ...values) : []) as Sql;
  sql.one = <T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    prepare(strings) ? raw.one<T>(strings, ...values) : undefined;
  sql.run = (strings: TemplateStringsArray, ...values: unknown[]) =>
    prepare(strings) ? raw.run(strings, ...values) : 0;
  sql.script = (text: string) => {
    if (prepare([text])) {
      raw.script(text);
    }
  };
  sql.cursor = <T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    prepare(strings) ? raw.cursor<T>(strings, ...values) : storage.exec<T>("SELECT NULL WHERE 0"); // an empty cursor, no table read
  sql.value = raw.value;
  sql.textRead = raw.textRead;
  return sql;
}

const camelNames = new Map<string, string>();

/** A column's name as a row key: `next_remind_at` → `nextRemindAt`. */
function keyOf(column: string): string {
  let key = camelNames.get(column);
  if (key === undefined) {
    key = column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    camelNames.set(column, key);
  }
  return key;
}

/** A row key's column: `nextRemindAt` → `next_remind_at` (for writers that name columns from keys). */
export function columnOf(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The cursor's rows with camelCase keys, built from its `raw()` value arrays and its column
 * names. In workerd that costs less per row than re-keying the row objects `toArray()` makes
 * (which a profile of 100 concurrent cycles had at ≈ 10 % of the isolate's time: bench/README
 * §4, "Issue 26, sixth pass").
 */
function camelRows<T>(
  cursor: SqlStorageCursor<Row>,
  { large, tally }: { large: LargeValues; tally: { units: number } },
): T[] {
  const keys = cursor.columnNames.map(keyOf);
  const rows: T[] = [];
  for (const values of cursor.raw()) {
    const row: Row = {};
    for (let i = 0; i < keys.length; i += 1) {
      let value = values[i] as SqlStorageValue;
      if (typeof value === "string") {
        // A large value's reference starts with NUL (large/values.ts): one compare per text cell.
        if (value.charCodeAt(0) === 0 && isReference(value)) {
          value = large.load(value);
        }
        tally.units += value.length;
      }
      row[keys[i] as string] = value;
    }
    rows.push(row as T);
  }
  return rows;
}

function bind(value: unknown): SqlStorageValue {
  if (value === undefined) {
    return null;
  }
  if (typeof value === "boolean") {
    return value ? 1 : 0;
  }
  if (
    value === null ||
    typeof value === "string" ||
    typeof value === "number" ||
    value instanceof ArrayBuffer
  ) {
    return value;
  }
  return JSON.stringify(value);
}
