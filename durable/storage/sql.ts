/**
 * A small typed helper over the Durable Object's SQLite storage: a tagged template
 * that binds every interpolated value as a parameter (never spliced into SQL text), and
 * hands rows back with camelCase keys (`run_id` → `runId`): columns keep SQL's naming,
 * everything above storage sees the domain's. Writers that name columns from keys turn
 * them back with `columnOf`.
 */
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
}

export function createSql(storage: SqlStorage): Sql {
  const exec = <T extends Row>(strings: TemplateStringsArray, values: unknown[]) =>
    storage.exec<T>(strings.join("?"), ...values.map(bind));
  const sql = (<T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    camelRows<T>(exec<Row>(strings, values))) as Sql;
  // Every row is read, as before: a statement with `RETURNING` finishes its writes only then.
  sql.one = <T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    camelRows<T>(exec<Row>(strings, values))[0];
  sql.cursor = <T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    exec<T>(strings, values);
  sql.run = (strings: TemplateStringsArray, ...values: unknown[]) => {
    const cursor = exec(strings, values);
    cursor.toArray();
    return cursor.rowsWritten;
  };
  sql.script = (text: string) => {
    storage.exec(text).toArray();
  };
  return sql;
}

/**
 * {@link createSql} over storage whose schema is created by its first write: until then
 * (a fresh object, e.g. one a made-up run id addressed) every read answers "nothing there"
 * without touching storage, so such an object writes nothing at all. Storage that already
 * has a schema is brought up to date at once (`migrate` is idempotent).
 */
export function createLazySql(
  storage: SqlStorage,
  migrate: (sql: Sql) => void,
  hasSchema: (sql: Sql) => boolean,
): Sql {
  const raw = createSql(storage);
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
function camelRows<T>(cursor: SqlStorageCursor<Row>): T[] {
  const keys = cursor.columnNames.map(keyOf);
  const rows: T[] = [];
  for (const values of cursor.raw()) {
    const row: Row = {};
    for (let i = 0; i < keys.length; i += 1) {
      row[keys[i] as string] = values[i] as SqlStorageValue;
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
