/**
 * A run's event stream sends what one synchronous step writes as one chunk (issue 46: a chunk
 * per frame crossed from the thread's object to the worker and the socket on its own, ≈ 2–3 ms
 * of CPU per cycle). Read here as raw chunks, not parsed frames: the frames must arrive whole,
 * in the log's order, each once, and the stream must not close before the last of them is out.
 */
import { describe, expect, it } from "vitest";
import { EventHub } from "../../durable/thread/event-hub";
import { inThread, threadOfRun } from "../helpers/durable";
import { pendingRun } from "../helpers/http";

const decoder = new TextDecoder();

/** The next chunk the stream gives, as text (undefined once it has ended). */
async function nextChunk(reader: ReadableStreamDefaultReader<Uint8Array>) {
  const { value, done } = await reader.read();
  return done ? undefined : decoder.decode(value);
}

/** Every `event:` name in the text, in order. */
const eventsIn = (text: string) => [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);

describe("the frames of one step in one chunk", () => {
  it("sends the backlog with its opening comment and halt as one chunk", async () => {
    const { runId } = await pendingRun("Please refund $120 on order 42");
    const first = await inThread(threadOfRun(runId), async (instance) => {
      const hub = new EventHub(instance.store);
      const reader = hub.stream(runId, 0, () => false).body!.getReader();
      const chunk = await nextChunk(reader);
      await reader.cancel();
      return chunk;
    });
    expect(first?.startsWith(": connected\n\n")).toBe(true);
    expect(eventsIn(first ?? "")).toEqual(["tool_call", "pending"]);
    expect(first?.endsWith(": halted\n\n")).toBe(true);
  });

  it("sends events recorded in one step together, a later step apart, and the final one before it closes", async () => {
    const { runId } = await pendingRun("Please refund $120 on order 42");
    const chunks = await inThread(threadOfRun(runId), async (instance) => {
      const hub = new EventHub(instance.store);
      const reader = hub.stream(runId, 0, () => false).body!.getReader();
      await nextChunk(reader); // the backlog
      const read: (string | undefined)[] = [];
      hub.record(runId, "text", { delta: "one, " });
      hub.record(runId, "text", { delta: "two, " });
      hub.record(runId, "text", { delta: "three" });
      read.push(await nextChunk(reader));
      hub.record(runId, "text", { delta: " — and four" });
      read.push(await nextChunk(reader));
      // The final event closes the stream in the same step it is written in.
      hub.record(runId, "text", { delta: "." });
      hub.record(runId, "done", { status: "done", text: "one, two, three — and four." });
      read.push(await nextChunk(reader));
      read.push(await nextChunk(reader));
      return read;
    });
    expect(chunks.map((c) => (c === undefined ? "(end)" : eventsIn(c).join(",")))).toEqual([
      "text,text,text",
      "text",
      "text,done",
      "(end)",
    ]);
    // Whole frames, in the order recorded, the unicode intact.
    expect(chunks[0]).toContain('"delta":"one, "');
    expect(chunks[0]!.indexOf("one, ")).toBeLessThan(chunks[0]!.indexOf("three"));
    expect(chunks[1]).toContain(" — and four");
    const ids = chunks.flatMap((c) =>
      [...(c ?? "").matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])),
    );
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(6);
  });

  it("drops what a step wrote once the client has gone, without failing the step", async () => {
    const { runId } = await pendingRun("Please refund $120 on order 42");
    const recorded = await inThread(threadOfRun(runId), async (instance) => {
      const hub = new EventHub(instance.store);
      const reader = hub.stream(runId, 0, () => false).body!.getReader();
      await nextChunk(reader);
      hub.record(runId, "text", { delta: "written" });
      await reader.cancel(); // before the step's chunk is sent
      const row = hub.record(runId, "text", { delta: "after" });
      await Promise.resolve();
      return row;
    });
    expect(recorded?.type).toBe("text");
  });
});
