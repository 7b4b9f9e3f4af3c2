/**
 * Our AG-UI translator writes text and tool calls in the chunked form (TEXT_MESSAGE_CHUNK,
 * TOOL_CALL_CHUNK). What `@ag-ui/client`'s HttpAgent makes of it — after its own expansion
 * and verification — is the messages the triad would give: text segments around a tool call
 * are separate messages, continuation chunks without an id extend the open one, a child's
 * text is its own message, and every frame is a valid `@ag-ui/core` event as sent.
 */
import { HttpAgent } from "@ag-ui/client";
import { EventType } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { LoggedEvent } from "../../src/edge/protocol";
import { AgUiTranslator, type AgUiEvent } from "../../src/edge/protocols/ag-ui/events";

const log = (...events: Array<[string, Record<string, unknown>]>): LoggedEvent[] =>
  events.map(([type, data], i) => ({ id: i + 1, type, data }));

const ids = { threadId: "t1", runId: "r1" };

/** The translator's events for `events`, as one finished AG-UI run. */
function run(events: LoggedEvent[]): AgUiEvent[] {
  const t = new AgUiTranslator(ids);
  return [
    ...t.started(undefined),
    ...events.flatMap((e) => (e.type === "pending" ? t.pending(e, undefined) : t.event(e))),
  ];
}

function sse(events: AgUiEvent[]): Response {
  const body = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

async function agentReading(events: AgUiEvent[]) {
  vi.stubGlobal("fetch", async () => sse(events));
  const agent = new HttpAgent({ url: "http://edge.test/v1/ag-ui/support", threadId: "t1" });
  agent.addMessage({ id: "u1", role: "user", content: "refund $120 on order 42" });
  const seen: string[] = [];
  await agent.runAgent({ runId: "r1" }, { onEvent: ({ event }) => void seen.push(event.type) });
  return { agent, seen };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("AG-UI chunked text and tool calls", () => {
  const twoTurns = log(
    ["text", { delta: "Let me " }],
    ["text", { delta: "check." }],
    ["tool_call", { id: "c1", name: "refund_order", args: { orderId: "42", amount: 120 } }],
    ["tool_result", { id: "c1", name: "refund_order", output: "Refunded", isError: false }],
    ["text", { delta: "Done: " }],
    ["text", { delta: "refunded." }],
    ["done", { status: "done" }],
  );

  it("are one frame per delta and one per call, each a valid event", () => {
    const events = run(twoTurns);
    expect(events.map((e) => e.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.TEXT_MESSAGE_CHUNK,
      EventType.TEXT_MESSAGE_CHUNK,
      EventType.TOOL_CALL_CHUNK,
      EventType.TOOL_CALL_RESULT,
      EventType.TEXT_MESSAGE_CHUNK,
      EventType.TEXT_MESSAGE_CHUNK,
      EventType.RUN_FINISHED,
    ]);
    // A segment's first chunk names it; its continuations do not repeat the id.
    const text = events.filter((e) => e.type === EventType.TEXT_MESSAGE_CHUNK);
    expect(text.map((e) => e.messageId)).toEqual(["m1", undefined, "m5", undefined]);
    expect(text.some((e) => "role" in e)).toBe(false); // the default, assistant
    for (const event of events) {
      expect(() => EventSchemas.parse(event)).not.toThrow(); // as sent: no optional null to omit
    }
  });

  it("reach HttpAgent as the messages START / CONTENT / END would give", async () => {
    const { agent, seen } = await agentReading(run(twoTurns));
    expect(seen).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    const byId = new Map(agent.messages.map((m) => [m.id, m]));
    expect(byId.get("m1")).toMatchObject({ role: "assistant", content: "Let me check." });
    expect(byId.get("m5")).toMatchObject({ role: "assistant", content: "Done: refunded." });
    const call = agent.messages.flatMap((m) => ("toolCalls" in m ? (m.toolCalls ?? []) : []));
    expect(call).toHaveLength(1);
    expect(call[0]?.function.name).toBe("refund_order");
    expect(JSON.parse(String(call[0]?.function.arguments))).toEqual({ orderId: "42", amount: 120 });
    expect(agent.messages.find((m) => m.role === "tool")).toMatchObject({
      toolCallId: "c1",
      content: "Refunded",
    });
  });

  it("a halt after a call: the interrupt's RUN_FINISHED closes the chunked call", async () => {
    const t = new AgUiTranslator(ids);
    const request = { id: "apr_c1", kind: "approval", prompt: "Refund $120 on order 42?" };
    const events = [
      ...t.started(undefined),
      ...t.event({
        id: 1,
        type: "tool_call",
        data: { id: "c1", name: "refund_order", args: { orderId: "42" } },
      }),
      ...t.pending({ id: 2, type: "pending", data: { id: "c1", request } }, undefined),
      ...t.interrupted([t.interruptOf(request as never, null)]),
    ];
    const { agent, seen } = await agentReading(events);
    expect(seen.slice(-2)).toEqual(["TOOL_CALL_END", "RUN_FINISHED"]);
    expect(agent.pendingInterrupts).toMatchObject([{ id: "apr_c1", toolCallId: "c1" }]);
  });

  it("a child's text between the run's deltas is its own message, attributed to the child", async () => {
    const events = run(
      log(
        ["subagent_started", { handle: "root/refunds.1", name: "refunds" }],
        ["text", { delta: "Parent " }],
        ["text", { delta: "child", handle: "root/refunds.1" }],
        ["text", { delta: "again" }],
        ["subagent_finished", { handle: "root/refunds.1", status: "done" }],
        ["done", { status: "done" }],
      ),
    );
    const text = events.filter((e) => e.type === EventType.TEXT_MESSAGE_CHUNK);
    expect(text).toEqual([
      { type: EventType.TEXT_MESSAGE_CHUNK, messageId: "m2", delta: "Parent " },
      {
        type: EventType.TEXT_MESSAGE_CHUNK,
        messageId: "m3",
        delta: "child",
        subagentRunId: "root/refunds.1",
      },
      { type: EventType.TEXT_MESSAGE_CHUNK, messageId: "m4", delta: "again" },
    ]);
    const { agent } = await agentReading(events);
    expect(agent.messages.find((m) => m.id === "m3")).toMatchObject({
      content: "child",
      subagentRunId: "root/refunds.1",
    });
    expect(agent.messages.find((m) => m.id === "m4")).toMatchObject({ content: "again" });
  });
});
