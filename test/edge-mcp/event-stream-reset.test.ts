/**
 * The stalled client streams of bench/README §4 (issue 38, item 5), end to end: the thread's
 * object is reset (`abortAllDurableObjects`) while a client's event stream is open. The old
 * instance keeps the stream (its keep-alives go on), a new instance takes the decision and
 * finishes the run; the stream must still show `resumed` … `done` and end (the fixture's
 * keep-alive is 200 ms: durable/thread/event-hub.ts reads the log at each one).
 */
import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { READER_AGENT } from "../fixtures/big-output-agents";
import { getRun, signedDecision, startRun, waitForStatus } from "../helpers/edge";
import { SseReader, openEvents } from "../helpers/http";

describe("an event stream open while its thread's object is reset", () => {
  it("still reaches done, each event once", async () => {
    const { runId } = await startRun({
      agent: READER_AGENT,
      input: JSON.stringify({ tool: "dump_gated", text: "x", repeat: 3 }),
    });
    const reader = new SseReader(await openEvents(runId));
    const pending = await reader.until((f) => f.event === "pending");
    const request = JSON.parse(pending!.data).request as { id: string };

    await abortAllDurableObjects();
    const decided = await signedDecision({ runId, requestId: request.id, decision: "approve" });
    expect(decided.status).toBe(202);
    await waitForStatus(runId, ["done"]);

    const frames = await reader.toEnd(10_000);
    const types = frames.map((f) => f.event);
    expect(types).toEqual(["tool_call", "pending", "resumed", "tool_result", "text", "done"]);
    expect(new Set(frames.map((f) => f.id)).size).toBe(frames.length);
    expect((await getRun(runId)).text).toBe("I was sent 3 characters");
  });
});
