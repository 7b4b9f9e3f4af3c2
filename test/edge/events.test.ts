/**
 * GET /v1/runs/:runId/events — Server-Sent Events of a run: replay of a finished run,
 * Last-Event-ID reconnection, and a live stream across a suspension and its decision.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  BASE,
  SseReader,
  absentRunId,
  allEvents,
  api,
  dataOf,
  decideAndFinish,
  errorOf,
  finishedRun,
  getRun,
  openEvents,
  pendingRun,
  signedDecision,
  startRun,
  uniqueThread,
  waitForStatus,
  type SseFrame,
} from "../helpers/http";
import { sqlIn } from "../helpers/durable";
import { recordOnly } from "../helpers/record-only";

const SLOW = 30_000;
const types = (frames: SseFrame[]) => frames.map((f) => f.event);
const ids = (frames: SseFrame[]) => frames.map((f) => Number(f.id));

/** An approved account deletion: suspends once, resumes, finishes. Returns its full event log. */
async function approvedRun() {
  const { runId, request } = await pendingRun("Please delete my account");
  const done = await decideAndFinish(runId, request.id, "approve");
  expect(done.status).toBe("done");
  return { runId, request, done, events: await allEvents(runId) };
}

function expectWellFormed(frames: SseFrame[]): void {
  for (const frame of frames) {
    expect(frame.id, JSON.stringify(frame)).toMatch(/^\d+$/);
    expect(() => JSON.parse(frame.data), frame.data).not.toThrow();
  }
  const numbers = ids(frames);
  for (let i = 1; i < numbers.length; i += 1) {
    expect(numbers[i]!).toBeGreaterThan(numbers[i - 1]!);
  }
}

describe("the event log of a finished run", () => {
  it(
    "replays the whole vocabulary in order and closes after done",
    async () => {
      const { runId, request, done, events } = await approvedRun();
      const response = await openEvents(runId);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(response.headers.get("cache-control")).toMatch(/no-store|no-cache/);
      // Read to the end (the run is finished, so the server closes the stream after done):
      // cancelling it while the server still writes makes workerd log a PumpToReader dump.
      expect(await response.text()).toMatch(/\nevent: done\n/);

      expectWellFormed(events);
      expect(types(events)).toEqual([
        "tool_call",
        "pending",
        "resumed",
        "tool_result",
        "text",
        "done",
      ]);

      const [call, pending, resumed, result, text, final] = events.map((e) => dataOf(e));
      expect(call).toMatchObject({ name: "delete_account", args: {} });
      expect(typeof call!.id).toBe("string");
      expect(pending).toMatchObject({ request: { id: request.id, kind: "approval" } });
      expect(resumed).toMatchObject({
        requestId: request.id,
        decision: "approve",
        channel: "webhook",
      });
      expect(result).toMatchObject({
        id: call!.id,
        name: "delete_account",
        output: "Account deleted",
        isError: false,
      });
      expect(text).toEqual({ delta: done.text });
      expect(final).toMatchObject({
        status: "done",
        text: done.text,
        turns: done.turns,
        usage: done.usage,
      });
    },
    SLOW,
  );

  it("records a run without suspension as tool_call, tool_result, text, done", async () => {
    const { runId, run } = await finishedRun("Where is order 42?");
    const events = await allEvents(runId);
    expectWellFormed(events);
    expect(types(events)).toEqual(["tool_call", "tool_result", "text", "done"]);
    expect(dataOf(events[0]!)).toMatchObject({ name: "lookup_order", args: { orderId: "42" } });
    expect(dataOf(events[1]!)).toMatchObject({ name: "lookup_order", isError: false });
    expect(dataOf(events[1]!).id).toBe(dataOf(events[0]!).id);
    expect(dataOf(events[3]!)).toMatchObject({ status: "done", text: run.text });
  });

  it("a run stored with the old limit spelling reads back as maxTurns, in the view and the log", async () => {
    const { runId, threadId } = await finishedRun("Where is order 42?");
    // As an older version stored a run stopped by its turn limit.
    await sqlIn(
      threadId,
      "UPDATE runs SET status = 'incomplete', limit_reason = 'max_turns' WHERE run_id = ?",
      runId,
    );
    await sqlIn(
      threadId,
      `UPDATE events SET data = '{"status":"incomplete","text":"","limit":"max_turns"}' WHERE run_id = ? AND type = 'done'`,
      runId,
    );
    expect((await getRun(runId)).limit).toBe("maxTurns");
    const events = await allEvents(runId);
    expect(dataOf(events.at(-1)!)).toEqual({ status: "incomplete", text: "", limit: "maxTurns" });
  });

  it(
    "records a declined run's refusal as an error result, then the model's text",
    async () => {
      const { runId, request } = await pendingRun("Refund order 42 for $120");
      const done = await decideAndFinish(runId, request.id, "decline");
      const events = await allEvents(runId);
      expect(types(events)).toEqual([
        "tool_call",
        "pending",
        "resumed",
        "tool_result",
        "text",
        "done",
      ]);
      expect(dataOf(events[2]!)).toMatchObject({ requestId: request.id, decision: "decline" });
      expect(dataOf(events[3]!)).toMatchObject({ name: "refund_order", isError: true });
      expect(dataOf(events[5]!)).toMatchObject({ status: "done", text: done.text });
    },
    SLOW,
  );

  it("records a policy decision without a pending event", async () => {
    const { runId, run } = await finishedRun("Refund order 42 for $50000");
    const events = await allEvents(runId);
    expect(types(events)).toEqual(["tool_call", "tool_result", "text", "done"]);
    expect(dataOf(events[1]!)).toMatchObject({ name: "refund_order", isError: true });
    expect(dataOf(events[3]!)).toMatchObject({ status: "done", text: run.text });
  });

  it(
    "keeps each run's events apart on a shared thread",
    async () => {
      const threadId = uniqueThread();
      const first = await finishedRun("Where is order 42?", { threadId });
      const second = await finishedRun("Refund order 42 for $20", { threadId });
      const [a, b] = await Promise.all([allEvents(first.runId), allEvents(second.runId)]);
      expect(types(a)).toEqual(["tool_call", "tool_result", "text", "done"]);
      expect(types(b)).toEqual(["tool_call", "tool_result", "text", "done"]);
      expect(dataOf(b[0]!)).toMatchObject({ name: "refund_order" });
      expect(ids(a).filter((id) => ids(b).includes(id))).toEqual([]);
      // Replaying the second run after an id of the first never leaks the first run's events.
      expect(await allEvents(second.runId, ids(a)[0]!)).toEqual(b);
    },
    SLOW,
  );
});

describe("Last-Event-ID", () => {
  it(
    "replays exactly the events after n, for every n",
    async () => {
      const { runId, events } = await approvedRun();
      const all = ids(events);
      const cuts = [0, ...all, all.at(-1)! + 5];
      for (const n of cuts) {
        const after = await allEvents(runId, n);
        const expected = events.filter((e) => Number(e.id) > n);
        expect(after, `after ${n}`).toEqual(expected);
        // The part before the cut and the replay after it make up the whole log, each event once.
        const union = [...events.filter((e) => Number(e.id) <= n), ...after];
        expect(ids(union)).toEqual(all);
        expect(new Set(ids(union)).size).toBe(union.length);
      }
    },
    SLOW,
  );

  it(
    "also takes the position as ?after= (for EventSource's first connection)",
    async () => {
      const { runId, events } = await approvedRun();
      const cut = Number(events[2]!.id);
      const response = await api(`/v1/runs/${runId}/events?after=${cut}`);
      expect(response.status).toBe(200);
      expect(await new SseReader(response).toEnd()).toEqual(events.slice(3));
    },
    SLOW,
  );

  it(
    "replays everything for a missing, garbage or negative Last-Event-ID",
    async () => {
      const { runId, events } = await approvedRun();
      for (const value of ["", "abc", "-3", "0"]) {
        expect(await allEvents(runId, value), JSON.stringify(value)).toEqual(events);
      }
    },
    SLOW,
  );
});

describe("a live stream", () => {
  it(
    "receives the suspension, then resumed … done after the decision, and closes",
    async () => {
      const threadId = uniqueThread();
      const started = await startRun({
        agent: "support",
        input: "Please delete my account",
        threadId,
      });
      const response = await openEvents(started.runId);
      expect(response.status).toBe(200);
      const live = new SseReader(response);

      const pendingFrame = await live.until((f) => f.event === "pending");
      expect(pendingFrame, "the live stream saw the pending event").toBeDefined();
      const request = dataOf<{ request: { id: string } }>(pendingFrame!).request;
      const run = await waitForStatus(started.runId, ["pending"]);
      expect(run.pending?.id).toBe(request.id);
      expect(live.closed).toBe(false);

      const decided = await signedDecision({
        runId: started.runId,
        requestId: request.id,
        decision: "approve",
        decidedBy: "lead@example.com",
      });
      expect(decided.status).toBe(202);
      const frames = await live.toEnd();
      expect(live.closed).toBe(true);

      const afterPending = frames.slice(frames.indexOf(pendingFrame!) + 1);
      expect(types(afterPending)).toEqual(["resumed", "tool_result", "text", "done"]);
      expect(dataOf(afterPending[0]!)).toMatchObject({
        requestId: request.id,
        decision: "approve",
      });
      // Live delivery is exactly the stored log: same ids, same order, nothing twice, nothing missing.
      expect(frames).toEqual(await allEvents(started.runId));
      expect((await getRun(started.runId)).status).toBe("done");
    },
    SLOW,
  );

  it(
    "opened mid-run with Last-Event-ID gets only the newer events, live",
    async () => {
      const { runId, request } = await pendingRun("Refund order 42 for $120");
      const backlog = await (async () => {
        const reader = new SseReader(await openEvents(runId));
        await reader.until((f) => f.event === "pending");
        await reader.cancel();
        return reader.frames;
      })();
      expect(types(backlog)).toEqual(["tool_call", "pending"]);
      const live = new SseReader(await openEvents(runId, backlog.at(-1)!.id));
      expect(
        (
          await signedDecision({
            runId,
            requestId: request.id,
            decision: "approve",
            decidedBy: "lead@example.com",
          })
        ).status,
      ).toBe(202);
      const frames = await live.toEnd();
      expect(types(frames)).toEqual(["resumed", "tool_result", "text", "done"]);
      expect([...backlog, ...frames]).toEqual(await allEvents(runId));
    },
    SLOW,
  );

  it(
    "closes when the run is cancelled",
    async () => {
      const { runId } = await pendingRun("Please delete my account");
      const live = new SseReader(await openEvents(runId));
      await live.until((f) => f.event === "pending");
      const cancelled = await api(`/v1/runs/${runId}/cancel`, { method: "POST" });
      expect(cancelled.status).toBe(200);
      const frames = await live.toEnd();
      expect(frames.at(-1)!.event).toBe("done");
      expect(dataOf(frames.at(-1)!)).toMatchObject({ status: "cancelled" });
      // And a replay of the cancelled run closes by itself, ending with the same done.
      expect(await allEvents(runId)).toEqual(frames);
    },
    SLOW,
  );

  it(
    "sees the same events as a later replay when a decision is cancelled before it is applied",
    async () => {
      const { runId, request } = await pendingRun("Please delete my account");
      const live = new SseReader(await openEvents(runId));
      await live.until((f) => f.event === "pending");
      // Decision first, cancel right after, before it is applied (its object died after the
      // record, before the drive).
      expect(
        await recordOnly({
          runId,
          requestId: request.id,
          decision: "approve",
          channel: "webhook",
          decidedBy: "lead@example.com",
        }),
      ).toMatchObject({ ok: true, duplicate: false });
      expect((await api(`/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(200);
      const liveFrames = await live.toEnd();

      // The decision recorded before the cancel still applies to its call (DESIGN §4).
      const deadline = Date.now() + 10_000;
      let run = await getRun(runId);
      while (run.decisions[0]?.appliedAt == null && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        run = await getRun(runId);
      }
      expect(run.status).toBe("cancelled");
      expect(run.decisions[0]?.appliedAt).not.toBeNull();

      const stored = await allEvents(runId);
      expect(stored.filter((e) => e.event === "done")).toHaveLength(1);
      expect(stored.at(-1)!.event, `log: ${types(stored).join(",")}`).toBe("done");
      expect(liveFrames, "a live listener must not miss what the log records").toEqual(stored);
    },
    SLOW,
  );

  it(
    "serves several listeners of one run the same events",
    async () => {
      const started = await startRun({ agent: "support", input: "Please delete my account" });
      const listeners = await Promise.all(
        [1, 2, 3].map(async () => new SseReader(await openEvents(started.runId))),
      );
      const pendingFrames = await Promise.all(
        listeners.map((l) => l.until((f) => f.event === "pending")),
      );
      const requestId = dataOf<{ request: { id: string } }>(pendingFrames[0]!).request.id;
      await waitForStatus(started.runId, ["pending"]);
      expect(
        (
          await signedDecision({
            runId: started.runId,
            requestId,
            decision: "decline",
            decidedBy: "lead@example.com",
          })
        ).status,
      ).toBe(202);
      const logs = await Promise.all(listeners.map((l) => l.toEnd()));
      const stored = await allEvents(started.runId);
      for (const log of logs) {
        expect(log).toEqual(stored);
      }
    },
    SLOW,
  );
});

describe("errors", () => {
  it("answers 404 for an unknown run", async () => {
    for (const id of ["nope", absentRunId()]) {
      const response = await openEvents(id);
      expect(response.status, id).toBe(404);
      expect((await errorOf(response)).code).toBe("run_not_found");
    }
  });

  it("answers 401 without a valid token", async () => {
    const { runId } = await finishedRun("Where is order 42?");
    for (const headers of [{}, { authorization: "Bearer wrong" }] as Array<
      Record<string, string>
    >) {
      const response = await SELF.fetch(`${BASE}/v1/runs/${runId}/events`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect((await errorOf(response)).code).toBe("unauthorized");
    }
  });
});
