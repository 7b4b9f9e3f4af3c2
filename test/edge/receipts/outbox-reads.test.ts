/**
 * The receipt outbox is asked for its retry time at every alarm arming (durable/thread/alarms.ts,
 * ≈ 20 times per approval cycle under the pipeline benchmark). Whether its tables exist is read
 * from sqlite_master until they do, then remembered; its cursor row is read once and then kept
 * as written; and whether it has work is read again only after a receipt was appended since
 * it last found none, or since a delivery acknowledged all it covered (issue 46: statements
 * per cycle).
 */
import { describe, expect, it } from "vitest";
import { deliverReceipts, ReceiptOutbox } from "../../../durable/outbox/receipts";
import type { SignedReceipt } from "../../../src/edge/receipts/receipt";
import { draft, SEED_A } from "./helpers";
import { receiptKeys } from "../../../src/edge/receipts/receipt-keys";
import { TABLES } from "../../../durable/storage/tables";
import { withScratchSql } from "./helpers";
import { countingSql as counting } from "../../helpers/counting-sql";

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

  it("keeps the cursor row as written: read once, never again for acked or retryAt", async () => {
    await withScratchSql((raw) => {
      raw.script(TABLES.join(";\n"));
      const { sql, texts } = counting(raw);
      const outbox = new ReceiptOutbox(sql, () => "th_1");
      const cursorReads = () => texts.filter((t) => t.includes("FROM receipt_delivery")).length;
      expect(outbox.acked()).toBe(0);
      expect(outbox.retryAt()).toBeUndefined();
      expect(cursorReads()).toBe(1);
      outbox.failed(1_000);
      outbox.failed(2_000); // the second attempt backs off from the first's count, kept in memory
      expect(outbox.retryAt()).toBe(2_000 + 4_000);
      outbox.ack(7);
      expect([outbox.acked(), outbox.retryAt()]).toEqual([7, undefined]);
      expect(cursorReads()).toBe(1);
      // What storage holds is what the outbox answers from memory.
      expect(
        raw.one`SELECT acked_seq, attempts, retry_at FROM receipt_delivery WHERE id = 1`,
      ).toEqual({ ackedSeq: 7, attempts: 0, retryAt: null });
      // A new object reads the row as the old one left it.
      expect(new ReceiptOutbox(raw, () => "th_1").acked()).toBe(7);
    });
  });

  it("answers hasWork from memory until a receipt is appended", async () => {
    await withScratchSql(async (raw) => {
      raw.script(TABLES.join(";\n"));
      const { sql, texts } = counting(raw);
      const outbox = new ReceiptOutbox(sql, () => "th_1");
      const receiptReads = () => texts.filter((t) => t.includes("FROM receipts")).length;
      expect(outbox.hasWork()).toBe(false);
      const afterFirst = receiptReads();
      expect(afterFirst).toBeGreaterThan(0);
      expect(outbox.hasWork()).toBe(false);
      expect(receiptReads()).toBe(afterFirst);

      outbox.receipts?.append(draft(), new Date("2026-07-01T10:02:00.000Z"));
      expect(outbox.hasWork()).toBe(true); // unsigned
      const [key] = await receiptKeys(SEED_A);
      await outbox.receipts?.signPending(key!);
      expect(outbox.hasWork()).toBe(true); // signed, not acknowledged: still asked of storage
      outbox.ack(1);
      expect(outbox.hasWork()).toBe(false);
      const idle = receiptReads();
      expect(outbox.hasWork()).toBe(false);
      expect(receiptReads()).toBe(idle);
    });
  });

  it("knows it has nothing to deliver once a delivery acknowledged all it covered", async () => {
    await withScratchSql(async (raw) => {
      raw.script(TABLES.join(";\n"));
      const { sql, texts } = counting(raw);
      const outbox = new ReceiptOutbox(sql, () => "th_1");
      outbox.receipts?.append(draft(), new Date("2026-07-01T10:02:00.000Z"));
      const sent: number[] = [];
      const deps = {
        outbox,
        key: async () => (await receiptKeys(SEED_A))[0]!,
        send: async (batch: SignedReceipt[]) => {
          sent.push(...batch.map((r) => r.seq));
          return { stored: batch.length, repeated: 0, gaps: [], conflicts: [] };
        },
        transaction: (fn: () => void) => fn(),
        now: () => 1_000,
      };
      expect(await deliverReceipts(deps)).toBe(1);
      expect(sent).toEqual([1]);
      const delivered = texts.length;
      expect(outbox.hasWork()).toBe(false);
      expect(await deliverReceipts(deps)).toBe(0);
      expect(texts.length).toBe(delivered); // neither asked storage
      // A receipt appended later is delivered by the next round.
      outbox.receipts?.append(
        draft({ requestId: "apr_call_2" }),
        new Date("2026-07-01T10:03:00.000Z"),
      );
      expect(await deliverReceipts(deps)).toBe(1);
      expect(sent).toEqual([1, 2]);
    });
  });
});
