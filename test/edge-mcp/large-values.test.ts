/**
 * No stored value has a size cliff below 32 MiB (durable/storage/large/values.ts): a model
 * reply, a tool's output and a tool's arguments of 3 MB and 20 MB are stored, streamed and
 * shown exactly through every surface. The `big` agent (test/fixtures/big-values-agent.ts)
 * makes them.
 */
import { describe, expect, it } from "vitest";
import { BIG_AGENT, bigText } from "../fixtures/big-values-agent";
import { api, startRun } from "../helpers/edge";
import { sqlIn } from "../helpers/durable";

const MB = 1_000_000;

interface Frame {
  id: string;
  event: string;
  data: any;
}

/** The run's whole event log over GET /events (it closes at the run's end), parsed at once. */
async function eventsOf(runId: string, lastEventId?: number): Promise<Frame[]> {
  const response = await api(`/v1/runs/${runId}/events`, {
    headers: lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) },
  });
  expect(response.status).toBe(200);
  return (await response.text())
    .split("\n\n")
    .filter((block) => block.startsWith("id: "))
    .map((block) => {
      const [id, event, data] = block.split("\n").map((line) => line.slice(line.indexOf(": ") + 2));
      return { id: id!, event: event!, data: JSON.parse(data!) };
    });
}

async function viewOf(runId: string, query = ""): Promise<any> {
  const response = await api(`/v1/runs/${runId}${query}`);
  expect(response.status).toBe(200);
  return response.json();
}

/** Starts a run of the `big` agent and waits for its end through its event stream. */
async function bigRun(input: string) {
  const { runId } = await startRun({ agent: BIG_AGENT, input });
  const frames = await eventsOf(runId);
  return { runId, frames, view: await viewOf(runId, "?transcript=1") };
}

/** Compares without handing vitest a 20 MB diff to print. */
function same(actual: unknown, expected: string): void {
  expect(typeof actual).toBe("string");
  expect((actual as string).length).toBe(expected.length);
  expect(actual === expected).toBe(true);
}

describe("large values through /events and GET /v1/runs/:id", () => {
  for (const size of [3 * MB, 20 * MB]) {
    it(`a ${size / MB} MB model reply is stored, replayed and shown exactly`, async () => {
      const expected = bigText(size);
      const { runId, frames, view } = await bigRun(`reply ${size}`);
      expect(view.error).toBeNull();
      expect(view.status).toBe("done");
      same(view.text, expected);
      same(view.transcript.at(-1).content, expected);
      same(
        frames
          .filter((f) => f.event === "text")
          .map((f) => f.data.delta)
          .join(""),
        expected,
      );
      same(frames.find((f) => f.event === "done")?.data.text, expected);
      // Replayed from an event id: the large event comes back whole.
      const first = Number(frames[0]!.id);
      const replay = await eventsOf(runId, first - 1);
      same(replay.find((f) => f.event === "done")?.data.text, expected);
    });

    it(`a ${size / MB} MB tool output is stored, replayed and shown exactly`, async () => {
      const expected = bigText(size);
      const { frames, view } = await bigRun(`tool ${size}`);
      expect(view.error).toBeNull();
      expect(view.status).toBe("done");
      same(view.toolCalls[0].output, expected);
      same(view.transcript.find((m: any) => m.role === "tool").content, expected);
      same(frames.find((f) => f.event === "tool_result")?.data.output, expected);
      expect(view.text).toBe(`tool said ${size} units`);
    });
  }

  it("3 MB tool arguments are stored and shown exactly", async () => {
    const expected = bigText(3 * MB);
    const { frames, view } = await bigRun(`args ${3 * MB}`);
    expect(view.error).toBeNull();
    expect(view.status).toBe("done");
    same(view.toolCalls[0].args.blob, expected);
    same(frames.find((f) => f.event === "tool_call")?.data.args.blob, expected);
    expect(view.text).toBe(`tool said ${`took ${3 * MB} units`.length} units`);
  });
});

/** Parts stored in the thread's object (none when no large value was ever stored there). */
async function partsIn(threadId: string): Promise<number> {
  const [table] = await sqlIn(
    threadId,
    "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'value_chunks'",
  );
  if (!table?.n) {
    return 0;
  }
  const [row] = await sqlIn(threadId, "SELECT COUNT(*) AS n FROM value_chunks");
  return Number(row?.n);
}

/** Rows over 100 kB in the tables a run writes (the 32 MiB value, or a part of it, would be one). */
async function largeRowsIn(threadId: string): Promise<string[]> {
  const rows = await sqlIn(
    threadId,
    `SELECT 'messages' AS t, seq AS k FROM messages WHERE length(body) > 100000
     UNION ALL SELECT 'tool_calls', seq FROM tool_calls WHERE length(body) > 100000
     UNION ALL SELECT 'slots', call_id FROM slots WHERE length(body) > 100000
     UNION ALL SELECT 'events', id FROM events WHERE length(data) > 100000
     UNION ALL SELECT 'runs', run_id FROM runs WHERE length(text) > 100000 OR length(error) > 100000`,
  );
  return rows.map((row) => `${row.t} ${row.k}`);
}

describe("a value over 32 MiB", () => {
  const limit = 32 * 1024 * 1024;
  const cases = [
    { input: "reply", what: "the model's reply", absent: "text" },
    { input: "tool", what: "the output of tool big_file", absent: "tool_result" },
  ];
  for (const { input, what, absent } of cases) {
    it(`${what}: the run fails with value_too_large naming it, nothing of it is stored, the thread goes on`, async () => {
      const size = limit + 1;
      const { runId, threadId } = await startRun({
        agent: BIG_AGENT,
        input: `${input} ${size} ascii`,
      });
      const frames = await eventsOf(runId);
      const error = frames.find((f) => f.event === "error");
      expect(error?.data).toEqual({
        code: "value_too_large",
        message: `${what} is ${size} bytes, over the limit of ${limit} bytes (32 MiB)`,
      });
      const view = await viewOf(runId, "?transcript=1");
      expect(view.status).toBe("failed");
      expect(view.error).toEqual(error?.data);
      expect(frames.some((f) => f.event === absent)).toBe(false);
      expect(JSON.stringify(view).length).toBeLessThan(100_000);
      expect(await partsIn(threadId)).toBe(0);
      // No row of any table holds the value, or a part of it: the run's rows are all small.
      expect(await largeRowsIn(threadId)).toEqual([]);

      const next = await startRun({ agent: BIG_AGENT, input: "hello", threadId });
      await eventsOf(next.runId);
      expect(await viewOf(next.runId)).toMatchObject({ status: "done", text: "small reply" });
    });
  }
});
