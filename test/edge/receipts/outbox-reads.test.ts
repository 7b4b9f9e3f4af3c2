/**
 * The receipt outbox is asked for its retry time at every alarm arming (durable/thread/alarms.ts,
 * ≈ 20 times per approval cycle under the pipeline benchmark). Whether its tables exist is read
 * from sqlite_master until they do, then remembered (issue 46: statements per cycle).
 */
import { describe, expect, it } from "vitest";
import { ReceiptOutbox } from "../../../durable/outbox/receipts";
import type { Sql } from "../../../durable/storage/sql";
import { TABLES } from "../../../durable/storage/tables";
import { withScratchSql } from "./helpers";

/** `sql` with every statement's text recorded. */
function counting(sql: Sql): { sql: Sql; texts: string[] } {
  const texts: string[] = [];
  const wrapped = ((strings: TemplateStringsArray, ...values: unknown[]) => {
    texts.push(strings.join("?"));
    return sql(strings, ...values);
  }) as Sql;
  wrapped.one = (strings, ...values) => {
    texts.push(strings.join("?"));
    return sql.one(strings, ...values);
  };
  wrapped.run = (strings, ...values) => {
    texts.push(strings.join("?"));
    return sql.run(strings, ...values);
  };
  wrapped.cursor = (strings, ...values) => {
    texts.push(strings.join("?"));
    return sql.cursor(strings, ...values);
  };
  wrapped.script = (text) => sql.script(text);
  wrapped.value = (text) => sql.value(text);
  wrapped.textRead = () => sql.textRead();
  return { sql: wrapped, texts };
}

const schemaReads = (texts: string[]) => texts.filter((t) => t.includes("sqlite_master")).length;

describe("receipt outbox reads", () => {
  it("reads sqlite_master once per table, not at every arming", async () => {
    await withScratchSql((raw) => {
      const { sql, texts } = counting(raw);
      const outbox = new ReceiptOutbox(sql, () => "th_1");
      // Before the schema: nothing to retry, asked again each time (the tables may come).
      expect(outbox.retryAt()).toBeUndefined();
      expect(outbox.retryAt()).toBeUndefined();
      expect(schemaReads(texts)).toBe(2);
      raw.script(TABLES.join(";\n"));
      texts.length = 0;
      for (let i = 0; i < 10; i += 1) {
        expect(outbox.retryAt()).toBeUndefined();
        expect(outbox.acked()).toBe(0);
        outbox.hasWork();
      }
      // receipt_delivery and receipts here, receipts once more in ThreadReceipts (hasWork): once each
      expect(schemaReads(texts)).toBe(3);
      outbox.failed(1_000);
      expect(outbox.retryAt()).toBeGreaterThan(1_000);
      outbox.ack(3);
      expect(outbox.acked()).toBe(3);
      expect(outbox.retryAt()).toBeUndefined();
      expect(schemaReads(texts)).toBe(3);
    });
  });
});
