/**
 * A small typed helper over the Durable Object's SQLite storage: a tagged template
 * that binds every interpolated value as a parameter (never spliced into SQL text).
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
}

export function createSql(storage: SqlStorage): Sql {
  const exec = <T extends Row>(strings: TemplateStringsArray, values: unknown[]) =>
    storage.exec<T>(strings.join("?"), ...values.map(bind));
  const sql = (<T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    exec<T>(strings, values).toArray()) as Sql;
  sql.one = <T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) => {
    const rows = exec<T>(strings, values).toArray();
    return rows[0];
  };
  sql.cursor = <T extends Row>(strings: TemplateStringsArray, ...values: unknown[]) =>
    exec<T>(strings, values);
  sql.run = (strings: TemplateStringsArray, ...values: unknown[]) => {
    const cursor = exec(strings, values);
    cursor.toArray();
    return cursor.rowsWritten;
  };
  return sql;
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
