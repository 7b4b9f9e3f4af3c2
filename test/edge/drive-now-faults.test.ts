/**
 * Drive at once under a seeded fault schedule (issue 26): the object drives a decision (and
 * a start) itself, the resume queue message follows as the backstop, and between them the
 * schedule kills every object (right after the start, right after the decision), delivers
 * the resume message again (duplicates, raced with the object's own drive) and late (after
 * the run finished), or leaves the exact state of a death between the record and the drive
 * (test/helpers/record-only.ts) for the alarm or the queue to recover. Whatever the schedule, the run finishes, the approved tool's result is
 * recorded once, and the transcript is balanced: nothing lost, nothing run twice.
 */
import { describe, expect, it } from "vitest";
import {
  abortAllDurableObjects,
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runDurableObjectAlarm,
} from "cloudflare:test";
import worker from "../../src/worker";
import type { EdgeEnv } from "../../src/edge/settings";
import type { DriveMessage } from "../../src/edge/protocol";
import type { Message } from "../../src/core/types";
import { getRun, startRun, waitForStatus } from "../helpers/edge";
import { countBy, eventsOf, threadStub, transcriptOf } from "../helpers/durable";
import { recordOnly } from "../helpers/record-only";

const REFUNDED = "Done: Refunded $80 on order 42";

/** One delivery of the resume message, as the queue makes it (the consumer drives the run). */
async function deliverResume(body: DriveMessage, attempts = 1) {
  const batch = createMessageBatch<DriveMessage>("toolnexus-resume", [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts, body },
  ]);
  const ctx = createExecutionContext();
  await worker.queue!(batch, env as Env & EdgeEnv, ctx);
  return getQueueResult(batch, ctx);
}

interface Faults {
  seed: number;
  killAfterStart: boolean;
  killAfterDecide: boolean;
  /**
   * The object dies after recording the decision and before driving it or sending its queue
   * message (made exact with recordOnly); then the alarm, or a resume message sent just
   * before the death, recovers it.
   */
  dieBeforeDrive?: "alarm" | "queue";
  /** Resume deliveries raced with the object's own drive of the decision. */
  duplicates: number;
  /** A resume delivery after the run finished. */
  late: boolean;
}

/** The schedule: a small deterministic generator (mulberry32), so a failure names its seed. */
function schedule(seed: number): Faults {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    killAfterStart: next() < 0.5,
    killAfterDecide: next() < 0.7,
    duplicates: Math.floor(next() * 3),
    late: next() < 0.6,
    ...(next() < 0.5
      ? { dieBeforeDrive: next() < 0.5 ? ("alarm" as const) : ("queue" as const) }
      : {}),
  };
}

// Every combination the schedule can produce that matters most is pinned first, then seeds.
const CASES: Faults[] = [
  { seed: 0, killAfterStart: false, killAfterDecide: true, duplicates: 0, late: true },
  { seed: 0, killAfterStart: true, killAfterDecide: true, duplicates: 2, late: true },
  { seed: 0, killAfterStart: false, killAfterDecide: false, duplicates: 2, late: true },
  {
    seed: 0,
    killAfterStart: false,
    killAfterDecide: true,
    duplicates: 0,
    late: true,
    dieBeforeDrive: "alarm",
  },
  {
    seed: 0,
    killAfterStart: true,
    killAfterDecide: true,
    duplicates: 1,
    late: true,
    dieBeforeDrive: "queue",
  },
  ...[1, 2, 3, 4, 5].map(schedule),
];

function expectBalanced(messages: Message[]): void {
  const calls = messages.flatMap((m) =>
    m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : [],
  );
  const results = messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []));
  expect(results.slice().sort()).toEqual(calls.slice().sort());
  expect(messages.some((m) => m.role === "tool" && m.pending)).toBe(false);
}

describe("drive at once under faults", { timeout: 60_000 }, () => {
  it.each(CASES)(
    "schedule %o: the run finishes and its approved tool's result is recorded once",
    async (faults) => {
      const started = await startRun({ agent: "support", input: "Please refund $80 on order 42" });
      const { runId, threadId } = started;
      if (faults.killAfterStart) {
        await abortAllDurableObjects(); // between the start's record and its drive
      }
      const pending = await waitForStatus(runId, ["pending"]);
      const request = pending.pending!;
      const stub = threadStub(threadId);
      const input = {
        runId,
        requestId: request.id,
        decision: "approve",
        channel: "webhook",
      } as const;
      const decided = await (faults.dieBeforeDrive ? recordOnly(input) : stub.decide(input));
      expect(decided).toMatchObject({ ok: true, duplicate: false });
      if (faults.killAfterDecide) {
        await abortAllDurableObjects(); // between the decision's record and its drive
      }
      if (faults.dieBeforeDrive === "alarm") {
        expect(await runDurableObjectAlarm(stub)).toBe(true);
      } else if (faults.dieBeforeDrive === "queue") {
        expect((await deliverResume({ threadId, runId })).explicitAcks).toHaveLength(1);
      }
      const duplicates = Array.from({ length: faults.duplicates }, (_, i) =>
        deliverResume({ threadId, runId }, i + 2),
      );
      for (const result of await Promise.all(duplicates)) {
        expect(result.retryMessages).toEqual([]);
      }
      const done = await waitForStatus(runId, ["done"]);
      expect(done.text).toBe(REFUNDED);
      if (faults.late) {
        expect((await deliverResume({ threadId, runId }, 5)).explicitAcks).toHaveLength(1);
      }

      const run = await getRun(runId);
      expect(run.status).toBe("done");
      expect(run.toolCalls.map((c) => c.name)).toEqual(["refund_order"]);
      expect(run.decisions).toHaveLength(1);
      expect(run.decisions[0]!.appliedAt).not.toBeNull();
      const events = await eventsOf(runId);
      const counts = countBy(events, (e) => e.type);
      expect(counts.tool_result, "the approved tool's result, once").toBe(1);
      expect(counts.pending).toBe(1);
      expect(counts.done).toBe(1);
      expect(events.at(-1)?.type).toBe("done");
      expectBalanced(await transcriptOf(runId));
    },
  );
});
