/**
 * The stalled client streams of bench/README §4 (issue 38, item 5): a stream is held by the
 * instance of the thread's object that opened it, while events are recorded by whichever
 * instance runs the run. When the object is reset with a stream open (evicted, aborted,
 * redeployed), the old instance's timers keep sending keep-alives into the stream, and the new
 * instance records every later event into its own hub, where nobody listens: the client sees
 * comments and never `pending` or `done` again. Here the old instance is a second `EventHub`
 * over the same storage (what is left of it after a reset); the stream must still deliver what
 * the log gets, or end so that the client reconnects.
 */
import { describe, expect, it } from "vitest";
import { EventHub } from "../../durable/thread/event-hub";
import type { RunStore } from "../../durable/storage/run-store";
import { inThread, threadOfRun } from "../helpers/durable";
import { SseReader, pendingRun } from "../helpers/http";

/** A keep-alive interval short enough for a test; nothing here measures it. */
const TICK_MS = 20;

describe("a stream held by an instance that no longer records", () => {
  it("still delivers the events another instance records, up to done, and closes", async () => {
    const { runId, request } = await pendingRun("Please refund $120 on order 42");
    const frames = await inThread(threadOfRun(runId), async (instance) => {
      const stale = new EventHub(instance.store, { keepAliveMs: TICK_MS });
      const reader = new SseReader(stale.stream(runId, 0, () => false));
      await reader.until((f) => f.event === "pending");
      // The instance that runs now takes the decision and drives the run to its end.
      const decided = await instance.decide({
        runId,
        requestId: request.id,
        decision: "approve",
        channel: "webhook",
      });
      expect(decided.ok).toBe(true);
      await instance.drive(runId);
      expect(instance.store.run(runId)?.status).toBe("done");
      return reader.toEnd(10_000);
    });
    const types = frames.map((f) => f.event);
    expect(types.slice(0, 2)).toEqual(["tool_call", "pending"]);
    expect(types.at(-1)).toBe("done");
    expect(types).toContain("resumed");
    // Each event once, in the log's order.
    const ids = frames.map((f) => Number(f.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("ends the stream when its instance cannot read the log any more, so the client reconnects", async () => {
    const { runId } = await pendingRun("Please refund $120 on order 42");
    const closed = await inThread(threadOfRun(runId), async (instance) => {
      let gone = false;
      const store: RunStore = Object.create(instance.store, {
        eventsAfter: {
          value: (id: string, after: number) => {
            if (gone) {
              throw new Error("Durable Object reset");
            }
            return instance.store.eventsAfter(id, after);
          },
        },
      });
      const stale = new EventHub(store, { keepAliveMs: TICK_MS });
      const reader = new SseReader(stale.stream(runId, 0, () => false));
      await reader.until((f) => f.event === "pending");
      gone = true;
      await reader.toEnd(10_000);
      return reader.closed;
    });
    expect(closed).toBe(true);
  });
});
