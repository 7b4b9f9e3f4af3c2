/**
 * The storage the receipt modules take: a tagged template that binds every interpolated value,
 * as durable/storage/sql.ts `createSql` makes one over a Durable Object's SQLite. Declared here by its
 * shape, because src/edge must not import durable/ (imports point durable → edge).
 */
export type ReceiptSqlRow = Record<string, SqlStorageValue>;

export interface ReceiptSql {
  <T extends ReceiptSqlRow = ReceiptSqlRow>(
    strings: TemplateStringsArray,
    ...values: unknown[]
  ): T[];
  one<T extends ReceiptSqlRow = ReceiptSqlRow>(
    strings: TemplateStringsArray,
    ...values: unknown[]
  ): T | undefined;
}
