// Compensation (docs/undo.md): a tool's `compensate` takes back a completed call; the kernel
// records each completed call's handle and `client.compensate` runs them last first, each once.
import { describe, expect, it } from "vitest";
import {
  answerOutput,
  createInProcessClient,
  createToolkit,
  defineTool,
  requireApproval,
  type GeneratedMessage,
  type ModelRequest,
} from "../../src/core";

/** A model that makes the given calls, one per turn, then answers. */
function scripted(calls: Array<{ name: string; arguments: Record<string, unknown> }>) {
  return (request: ModelRequest): GeneratedMessage => {
    const made = request.messages.filter((m) => m.role === "assistant").length;
    const next = calls[made];
    return next ? { toolCalls: [{ id: `call_${made + 1}`, ...next }] } : { content: "done" };
  };
}

function tools() {
  const log: string[] = [];
  let failures = 0;
  const book = defineTool<{ item: string }>({
    name: "book",
    description: "Book an item",
    run: ({ item }) => `booked ${item}`,
    compensate: ({ item }, result, ctx) => {
      log.push(`cancel ${item} (${result.output}; ${ctx.reason}; ${ctx.callId})`);
      return `cancelled ${item}`;
    },
  });
  const charge = requireApproval(
    defineTool<{ cents: number }>({
      name: "charge",
      description: "Charge a card",
      run: ({ cents }) => `charged ${cents}`,
      compensate: ({ cents }, _result, ctx) => {
        log.push(`refund ${cents} attempt ${ctx.attempt}`);
        if (failures > 0) {
          failures -= 1;
          throw new Error("card network down");
        }
        return `refunded ${cents}`;
      },
    }),
  );
  const look = defineTool({ name: "look", description: "Read only", run: () => "seen" });
  return {
    log,
    failNext: (n: number) => {
      failures = n;
    },
    toolkit: () => createToolkit({ tools: [book, charge, look] }),
  };
}

const CALLS = [
  { name: "book", arguments: { item: "room" } },
  { name: "look", arguments: {} },
  { name: "charge", arguments: { cents: 500 } },
  { name: "book", arguments: { item: "car" } },
];

async function haltedThenFinished() {
  const t = tools();
  const toolkit = await t.toolkit();
  const client = createInProcessClient({ model: "m", generate: scripted(CALLS) });
  const halted = await client.run("plan a trip", { toolkit });
  expect(halted.status).toBe("pending");
  return { t, toolkit, client, halted };
}

describe("client.compensate", () => {
  it("requireApproval keeps the tool's compensate", async () => {
    const { toolkit } = await haltedThenFinished();
    expect(typeof toolkit.get("charge")?.compensate).toBe("function");
  });

  it("records each completed call's handle and compensates in reverse order, each once", async () => {
    const { t, toolkit, client, halted } = await haltedThenFinished();
    const pending = halted.pending!;
    const done = await client.runWithAnswer({
      ...JSON.parse(JSON.stringify(halted)),
      toolkit,
      history: halted.messages,
      pending,
      answer: answerOutput(pending.id, {}),
    });
    expect(done.status).toBe("done");
    expect(done.toolCalls.map((c) => [c.name, c.compensable ?? false])).toEqual([
      ["book", true],
      ["look", false],
      ["charge", true],
      ["book", true],
    ]);

    // The state is plain JSON: a host stores it and compensates later.
    const state = JSON.parse(JSON.stringify(done));
    const ran = await client.compensate(state, { reason: "trip cancelled", toolkit });
    expect(ran.map((r) => [r.callId, r.tool, r.status])).toEqual([
      ["call_4", "book", "ran"],
      ["call_3", "charge", "ran"],
      ["call_2", "look", "not_compensable"],
      ["call_1", "book", "ran"],
    ]);
    expect(t.log).toEqual([
      "cancel car (booked car; trip cancelled; call_4)",
      "refund 500 attempt 1",
      "cancel room (booked room; trip cancelled; call_1)",
    ]);
    expect(state.compensations).toEqual(ran);

    const again = await client.compensate(state, { reason: "twice", toolkit });
    expect(again).toEqual([]);
    expect(t.log).toHaveLength(3);
  });

  it("compensates a halted run's completed calls", async () => {
    const { t, toolkit, client, halted } = await haltedThenFinished();
    const ran = await client.compensate(halted, { reason: "abandoned", toolkit });
    expect(ran.map((r) => [r.callId, r.status])).toEqual([
      ["call_2", "not_compensable"],
      ["call_1", "ran"],
    ]);
    expect(t.log).toEqual(["cancel room (booked room; abandoned; call_1)"]);
  });

  it("retries a failing compensation, then reports it failed and goes on", async () => {
    const { t, toolkit, client, halted } = await haltedThenFinished();
    const pending = halted.pending!;
    const done = await client.runWithAnswer({
      ...halted,
      toolkit,
      history: halted.messages,
      pending,
      answer: answerOutput(pending.id, {}),
    });
    t.failNext(1);
    const retried = await client.compensate(
      { ...done, compensations: [] },
      { reason: "r", toolkit, retryBaseMs: 0 },
    );
    expect(retried.find((r) => r.tool === "charge")?.status).toBe("ran");
    expect(t.log.filter((l) => l.startsWith("refund"))).toEqual([
      "refund 500 attempt 1",
      "refund 500 attempt 2",
    ]);

    t.failNext(10);
    const failed = await client.compensate(
      { ...done, compensations: [] },
      { reason: "r", toolkit, retryBaseMs: 0, attempts: 3 },
    );
    const charge = failed.find((r) => r.tool === "charge");
    expect(charge).toMatchObject({ status: "failed" });
    expect(charge?.error).toMatch(/card network down/);
    // The failure is reported, and the calls before it are still taken back.
    expect(failed.map((r) => r.status)).toEqual(["ran", "failed", "not_compensable", "ran"]);
  });
});
