/**
 * What a thread object remembers instead of asking storage again (issue 46: statements per
 * approval cycle). Each memo is only ever a shortcut to "nothing there": the inbox outbox
 * is known empty once everything its last read returned is acknowledged, and is read again
 * after any write to it; the undo tables are looked for again once this object's own store
 * created them. A write the memo did not see would be lost, so each
 * test writes through the object's own classes and checks the row comes out.
 */
import { describe, expect, it } from "vitest";
import { InboxOutbox } from "../../durable/outbox/inbox";
import { RunStore } from "../../durable/storage/run-store";
import { TABLES } from "../../durable/storage/tables";
import { UndoStore } from "../../durable/undo/store";
import type { Request } from "../../src/core/types";
import { withScratchSql } from "./receipts/helpers";
import { countingSql as counting } from "../helpers/counting-sql";

const RUN_ID = "th_memo.run_00000000000000000001";
const REQUEST: Request = { id: "apr_call_1", kind: "approval", prompt: "Refund $80?" };

describe("the inbox outbox", () => {
  it("reads its rows until it finds none, then again only after a write", async () => {
    await withScratchSql((raw) => {
      raw.script(TABLES.join(";\n"));
      const store = new RunStore(raw);
      store.insertRun({
        runId: RUN_ID,
        threadId: "th_memo",
        agent: "support",
        input: "refund order 42",
        publicUrl: "https://edge.example",
        now: 1_000,
      });
      const run = store.requireRun(RUN_ID);
      const { sql, texts } = counting(raw);
      const outbox = new InboxOutbox(sql);
      const reads = () =>
        texts.filter((t) => /^\s*SELECT/.test(t) && t.includes("FROM inbox_outbox")).length;

      expect(outbox.due()).toEqual([]);
      expect(outbox.retryAt(1_000)).toBeUndefined();
      expect(reads()).toBe(1); // the empty read is remembered: retryAt did not ask again

      outbox.record({ run, request: REQUEST }, { event: "surfaced" }, 2_000);
      expect(outbox.retryAt(2_000)).toBe(2_000 + 1_000); // asked again after the write
      const [row] = outbox.due();
      expect(row).toMatchObject({ grp: "default", attempts: 0 });
      expect(row?.item).toMatchObject({ requestId: REQUEST.id, status: "open", version: 1 });

      outbox.failed([row!.seq]); // a failed delivery leaves the row: still read each time
      expect(outbox.due()).toHaveLength(1);
      const beforeAck = reads();
      outbox.ack([row!.seq]); // all of the last read, nothing written since: known empty
      expect(outbox.due()).toEqual([]);
      const drained = reads();
      expect(drained).toBe(beforeAck);
      expect(outbox.due()).toEqual([]);
      expect(outbox.retryAt(3_000)).toBeUndefined();
      expect(reads()).toBe(drained);

      // A close is a write too: the next round sees it.
      outbox.closeRun(RUN_ID, "run cancelled", 4_000);
      const [closed] = outbox.due();
      expect(closed?.item.status).toBe("decided");
      // A write between the read and its acknowledgement: the outbox is read again.
      outbox.record(
        { run, request: { ...REQUEST, id: "apr_call_2" } },
        { event: "surfaced" },
        5_000,
      );
      outbox.ack([closed!.seq]);
      expect(outbox.due().map((r) => r.item.requestId)).toEqual(["apr_call_2"]);
    });
  });
});

describe("the undo store", () => {
  it("remembers that a thread has no undo tables, until it creates them", async () => {
    await withScratchSql((raw) => {
      const { sql, texts } = counting(raw);
      const undo = new UndoStore(sql);
      const lookups = () => texts.filter((t) => t.includes("sqlite_master")).length;
      expect(undo.unfinished()).toEqual([]);
      expect(undo.undo(RUN_ID)).toBeUndefined();
      expect(undo.steps(RUN_ID)).toEqual([]);
      expect(lookups()).toBe(1);

      undo.begin({ runId: RUN_ID, reason: "wrong order", requestedBy: "ann", now: 5_000 });
      expect(undo.unfinished()).toEqual([RUN_ID]);
      expect(undo.undo(RUN_ID)).toMatchObject({ state: "compensating", requestedBy: "ann" });
      expect(lookups()).toBe(1);
      // Another object over the same storage (a restart) finds the tables.
      expect(new UndoStore(raw).unfinished()).toEqual([RUN_ID]);
    });
  });
});
