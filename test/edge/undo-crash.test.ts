/**
 * An undo survives a crash (issue 44): each compensation is recorded before it runs and after.
 * The crash: from a chosen point on, the undo's storage writes fail (as if the process died
 * there: nothing after it is committed), and a new drive carries on from storage. A step
 * completed before the crash never runs again; a step that was running when the process died
 * may have run, so it is reported failed ("interrupted") and not run again either.
 */
import { describe, expect, it } from "vitest";
import {
  abortAllDurableObjects,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { signedDecision, waitForStatus } from "../helpers/edge";
import { startPending, threadStub } from "../helpers/durable";
import { nextAlarmAt, WATCHDOG_MS } from "../../durable/thread/alarms";
import { defineTool } from "../../src/core/tools/define";
import type { Tool } from "../../src/core/types";
import { RunStore } from "../../durable/storage/run-store";
import { createLazySql } from "../../durable/storage/sql";
import { hasSchema, migrate } from "../../durable/storage/schema";
import { UndoStore } from "../../durable/undo/store";
import { driveUndo, INTERRUPTED, type UndoDeps } from "../../durable/undo/drive";
import { newRunId, newThreadId } from "../../src/edge/http/threads";

function booking() {
  const ran: string[] = [];
  const tool: Tool = defineTool<{ item: string }>({
    name: "book",
    description: "Book an item",
    run: ({ item }) => `booked ${item}`,
    compensate: ({ item }) => {
      ran.push(item);
      return `cancelled ${item}`;
    },
  });
  return { tool, ran };
}

/** A finished run with three completed, compensable calls, and its undo recorded. */
async function undoneRun(state: DurableObjectState) {
  const threadId = newThreadId();
  const runId = newRunId(threadId);
  const sql = createLazySql(state.storage.sql, { migrate, hasSchema });
  const store = new RunStore(sql);
  const undo = new UndoStore(sql);
  state.storage.transactionSync(() => {
    store.insertRun({
      runId,
      threadId,
      agent: "trips",
      input: "book",
      publicUrl: "https://edge.test",
      now: Date.now(),
    });
    store.appendToolCalls(
      runId,
      ["room", "car", "train"].map((item, n) => ({
        id: `call_${n + 1}`,
        name: "book",
        args: { item },
        output: `booked ${item}`,
        isError: false,
        compensable: true as const,
      })),
    );
    store.update(runId, { status: "done" }, Date.now());
    undo.begin({ runId, reason: "trip off", requestedBy: "ann", now: Date.now() });
  });
  return { runId, store, undo };
}

describe("an undo across a crash", () => {
  it("a crash between two compensations: the drive after it runs each one once", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(newThreadId()));
    await runInDurableObject(stub, async (_instance, state) => {
      const { runId, store, undo } = await undoneRun(state);
      const { tool, ran } = booking();
      let crashed = false;
      const deps = (): UndoDeps => ({
        store,
        undo,
        tools: async () => [tool],
        now: () => Date.now(),
        transaction: (fn) => {
          if (crashed) {
            throw new Error("the process is gone");
          }
          const result = state.storage.transactionSync(fn);
          // Dies right after the first compensation's outcome is recorded.
          if (undo.steps(runId).some((step) => step.status === "ran")) {
            crashed = true;
          }
          return result;
        },
        record: (id, type, data) => {
          if (!crashed) {
            store.appendEvent(id, { type, data }, Date.now());
          }
        },
      });

      await expect(driveUndo(deps(), runId)).rejects.toThrow(/the process is gone/);
      expect(ran).toEqual(["train"]);
      expect(undo.steps(runId).map((s) => [s.callId, s.status])).toEqual([["call_3", "ran"]]);
      expect(store.run(runId)?.status).toBe("done");

      crashed = false;
      const recover = deps();
      recover.transaction = (fn) => state.storage.transactionSync(fn);
      expect(await driveUndo(recover, runId)).toBe(true);
      expect(ran).toEqual(["train", "car", "room"]);
      expect(undo.steps(runId).map((s) => [s.callId, s.status])).toEqual([
        ["call_3", "ran"],
        ["call_2", "ran"],
        ["call_1", "ran"],
      ]);
      expect(store.run(runId)?.status).toBe("compensated");
      expect(undo.undo(runId)?.state).toBe("compensated");
      // A third drive finds nothing to do.
      expect(await driveUndo(recover, runId)).toBe(false);
      expect(ran).toHaveLength(3);
    });
  });

  it("a crash while a compensation runs: that one is reported interrupted, never run again", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(newThreadId()));
    await runInDurableObject(stub, async (_instance, state) => {
      const { runId, store, undo } = await undoneRun(state);
      const { tool, ran } = booking();
      let crashed = false;
      const deps: UndoDeps = {
        store,
        undo,
        tools: async () => [tool],
        now: () => Date.now(),
        transaction: (fn) => {
          if (crashed) {
            throw new Error("the process is gone");
          }
          const result = state.storage.transactionSync(fn);
          // Dies once the first step is recorded as started (its compensation is then under way).
          crashed = undo.steps(runId).some((step) => step.status === "started");
          return result;
        },
        record: () => {},
      };
      await expect(driveUndo(deps, runId)).rejects.toThrow(/the process is gone/);
      expect(ran).toEqual(["train"]); // it ran; its outcome was never recorded

      crashed = false;
      const recover = {
        ...deps,
        transaction: <T>(fn: () => T) => state.storage.transactionSync(fn),
      };
      await driveUndo(recover, runId);
      expect(ran).toEqual(["train", "car", "room"]);
      expect(undo.steps(runId).map((s) => [s.callId, s.status, s.error])).toEqual([
        ["call_3", "failed", INTERRUPTED],
        ["call_2", "ran", null],
        ["call_1", "ran", null],
      ]);
      expect(store.run(runId)?.status).toBe("compensated");
    });
  });

  it("an undo recorded by a process that died before driving it is carried on by the alarm", async () => {
    expect(nextAlarmAt({ now: 1_000, runs: [], undoing: true })).toBe(1_000 + WATCHDOG_MS);
    const { runId, threadId, request, stub } = await startPending("refund $80 on order 42");
    expect(
      (await signedDecision({ runId, requestId: request.id, decision: "approve" })).status,
    ).toBe(202);
    await waitForStatus(runId, ["done"]);
    // What POST /undo does before its drive: the alarm armed, the undo recorded — and then the
    // process dies: no drive, no queue message.
    await runInDurableObject(stub, async (_instance, state) => {
      await state.storage.setAlarm(Date.now() + WATCHDOG_MS);
      const undo = new UndoStore(createLazySql(state.storage.sql, { migrate, hasSchema }));
      state.storage.transactionSync(() =>
        undo.begin({ runId, reason: "wrong order", requestedBy: "ann", now: Date.now() }),
      );
    });
    // The process is gone: the alarm meets a fresh object, with nothing but storage.
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(threadStub(threadId))).toBe(true);
    const run = await waitForStatus(runId, ["compensated"]);
    expect(run.undo?.compensations).toMatchObject([{ tool: "refund_order", status: "ran" }]);
  });
});
