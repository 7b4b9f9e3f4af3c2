/**
 * A long thread (issue 38 §4): 1,000 turns and 20 MB of transcript (no compaction) stored in a
 * thread's object, and the next run on that thread still starts from all of it and finishes.
 * The transcript is written through the thread's own store, as 1,000 earlier runs would have.
 */
import { describe, expect, it } from "vitest";
import { createLazySql } from "../../durable/storage/sql";
import { hasSchema, migrate } from "../../durable/storage/schema";
import { RunStore } from "../../durable/storage/run-store";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { inThread } from "../helpers/durable";
import { startRun, waitForStatus } from "../helpers/edge";

const TURNS = 1_000;
const REPLY = "r".repeat(10_000); // 2 × 10 KB a turn: 20 MB in all

describe("a thread of 1,000 turns and 20 MB", () => {
  it("takes its next run from the whole transcript", async () => {
    const threadId = newThreadId();
    await inThread(threadId, (_instance, state) => {
      const store = new RunStore(createLazySql(state.storage.sql, { migrate, hasSchema }));
      for (let turn = 0; turn < TURNS; turn += 1) {
        state.storage.transactionSync(() => {
          const runId = newRunId(threadId);
          const now = Date.now();
          store.insertRun({
            runId,
            threadId,
            agent: "support",
            input: `turn ${turn}: ${"u".repeat(10_000)}`,
            publicUrl: "https://edge.test",
            now,
          });
          store.appendMessages(runId, [{ role: "assistant", content: REPLY }]);
          store.update(runId, { status: "done", text: REPLY, turns: 1 }, now);
        });
      }
    });
    const stored = await inThread(threadId, (_instance, state) =>
      state.storage.sql
        .exec<{ n: number; bytes: number }>(
          "SELECT COUNT(*) AS n, SUM(length(body)) AS bytes FROM messages",
        )
        .one(),
    );
    expect(stored.n).toBe(2 * TURNS);
    expect(stored.bytes).toBeGreaterThan(20_000_000);

    const { runId } = await startRun({ agent: "support", input: "where is order 42", threadId });
    const run = await waitForStatus(runId, ["done", "failed"], 60_000);
    expect(run.error).toBeNull();
    expect(run.status).toBe("done");
    expect(run.text).toContain("42");
    // The model was sent the whole thread: its prompt tokens count every earlier turn.
    expect(run.usage.promptTokens).toBeGreaterThan(20_000_000 / 4);
    const runs = await inThread(threadId, (instance) => instance.store.runs().length);
    expect(runs).toBe(TURNS + 1);
  }, 180_000);
});
