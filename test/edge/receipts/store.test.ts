// The receipts store behind GET /v1/receipts: each thread's receipts in chain order only
// (an early delivery is a gap the outbox retries), repeats acknowledged, pages by cursor and since.
import { describe, expect, it } from "vitest";
import { ReceiptStore } from "../../../src/edge/receipts/receipt-store";
import type { SignedReceipt } from "../../../src/edge/receipts/receipt";
import { withScratchSql } from "./helpers";

const r = (threadId: string, seq: number, at: string): SignedReceipt => ({
  threadId,
  seq,
  runId: `${threadId}.run_x`,
  at,
  jws: `jws-${threadId}-${seq}`,
});

describe("ReceiptStore", () => {
  it("takes each thread's receipts in chain order, and says where a gap is", async () => {
    await withScratchSql((sql) => {
      const store = new ReceiptStore(sql);
      expect(store.page({ limit: 10 })).toEqual({ receipts: [], nextCursor: null });
      expect(store.accept([r("a", 2, "2026-07-01T10:00:00Z")])).toEqual({
        stored: 0,
        repeated: 0,
        gaps: [{ threadId: "a", seq: 2, expected: 1 }],
        conflicts: [],
      });
      const result = store.accept([
        r("a", 1, "2026-07-01T10:00:00Z"),
        r("b", 1, "2026-07-01T10:00:01Z"),
        r("a", 2, "2026-07-01T10:00:02Z"),
        r("a", 2, "2026-07-01T10:00:02Z"),
      ]);
      expect(result).toEqual({ stored: 3, repeated: 1, gaps: [], conflicts: [] });
      expect(
        store.accept([{ ...r("a", 1, "2026-07-01T10:00:00Z"), jws: "other" }]).conflicts,
      ).toEqual([{ threadId: "a", seq: 1 }]);
      expect(store.page({ limit: 10 }).receipts).toEqual(["jws-a-1", "jws-b-1", "jws-a-2"]);
    });
  });

  it("pages in arrival order with a cursor, and filters by since", async () => {
    await withScratchSql((sql) => {
      const store = new ReceiptStore(sql);
      const all = Array.from({ length: 5 }, (_, i) => r("a", i + 1, `2026-07-01T10:00:0${i}Z`));
      store.accept(all);
      const first = store.page({ limit: 2 });
      expect(first.receipts).toEqual(["jws-a-1", "jws-a-2"]);
      expect(first.nextCursor).toMatch(/^r\d+$/);
      const second = store.page({ limit: 2, cursor: first.nextCursor ?? "" });
      expect(second.receipts).toEqual(["jws-a-3", "jws-a-4"]);
      const last = store.page({ limit: 2, cursor: second.nextCursor ?? "" });
      expect(last).toEqual({ receipts: ["jws-a-5"], nextCursor: null });
      // Exactly full last page: no cursor to an empty page.
      expect(store.page({ limit: 5 }).nextCursor).toBeNull();
      const since = Date.parse("2026-07-01T10:00:03Z");
      expect(store.page({ limit: 10, since }).receipts).toEqual(["jws-a-4", "jws-a-5"]);
      expect(store.page({ limit: 10, since: Date.parse("2027-01-01T00:00:00Z") }).receipts).toEqual(
        [],
      );
    });
  });
});
