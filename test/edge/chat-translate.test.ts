/**
 * The chat protocols' pure parts: sub-agent events over synthetic logs (the shapes the
 * thread object is expected to write once teams run at the edge), the keep-alive comments
 * of a waiting stream, and the object's frames as the feed splits them.
 */
import { EventType } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { AgUiTranslator } from "../../src/edge/protocols/ag-ui/events";
import { ChunkTranslator } from "../../src/edge/protocols/chat/chunks";
import { foldChunks } from "../../src/edge/protocols/chat/history";
import { parseFrame } from "../../src/edge/protocols/run-feed";
import { sseResponse } from "../../src/edge/protocols/sse-writer";
import { parentHandle } from "../../src/edge/protocols/subagents";
import type { LoggedEvent } from "../../src/edge/protocol";

const log = (...events: Array<[string, Record<string, unknown>]>): LoggedEvent[] =>
  events.map(([type, data], i) => ({ id: i + 1, type, data }));

const childRequest = {
  id: "apr_c1",
  kind: "approval",
  prompt: "Refund $120 on order 42?",
  // A child's request names its subtree in data.path, as segments (issue 40).
  data: {
    tool: "refund_order",
    args: { orderId: "42", amount: 120 },
    path: ["root", "coordinator.1", "refunds.2"],
  },
};

const team = log(
  ["subagent_started", { handle: "root/coordinator.1", name: "coordinator" }],
  [
    "subagent_started",
    {
      handle: "root/coordinator.1/refunds.2",
      name: "refunds",
      description: "Refunds orders",
      parentToolCallId: "call_9",
    },
  ],
  [
    "tool_call",
    {
      id: "c1",
      name: "refund_order",
      args: { orderId: "42", amount: 120 },
      handle: "root/coordinator.1/refunds.2",
    },
  ],
  ["pending", { id: "c1", request: childRequest }],
  [
    "subagent_finished",
    { handle: "root/coordinator.1/refunds.2", status: "pending", requestIds: ["apr_c1"] },
  ],
);

describe("sub-agents", () => {
  it("names parents by path", () => {
    expect(parentHandle("root/coordinator.1/refunds.2")).toBe("root/coordinator.1");
    expect(parentHandle("root/coordinator.1")).toBeUndefined();
  });

  it("become AG-UI's SUBAGENT_* events, a suspended child's outcome and its interrupt's subagentRunId", () => {
    const t = new AgUiTranslator({ threadId: "t", runId: "r" });
    const events = team.flatMap((e) =>
      e.type === "pending" ? t.pending(e, undefined) : t.event(e),
    );
    expect(events.filter((e) => String(e.type).startsWith("SUBAGENT"))).toEqual([
      {
        type: EventType.SUBAGENT_STARTED,
        subagentRunId: "root/coordinator.1",
        name: "coordinator",
      },
      {
        type: EventType.SUBAGENT_STARTED,
        subagentRunId: "root/coordinator.1/refunds.2",
        name: "refunds",
        description: "Refunds orders",
        parentSubagentRunId: "root/coordinator.1",
        parentToolCallId: "call_9",
      },
      {
        type: EventType.SUBAGENT_FINISHED,
        subagentRunId: "root/coordinator.1/refunds.2",
        outcome: { type: "suspended", interruptIds: ["apr_c1"] },
      },
    ]);
    // The child's tool call is attributed to it.
    expect(events.find((e) => e.type === EventType.TOOL_CALL_CHUNK)).toMatchObject({
      subagentRunId: "root/coordinator.1/refunds.2",
    });
    const interrupt = t.interruptOf(childRequest as never, null, "h".repeat(43));
    expect(interrupt).toMatchObject({
      id: "apr_c1",
      toolCallId: "c1",
      subagentRunId: "root/coordinator.1/refunds.2",
      metadata: { argsHash: "h".repeat(43) },
    });
  });

  it("a failed child is SUBAGENT_ERROR; a finished one the success outcome with its text", () => {
    const t = new AgUiTranslator({ threadId: "t", runId: "r" });
    const [failed] = t.event({
      id: 1,
      type: "subagent_finished",
      data: { handle: "root/a.1", status: "failed", text: "boom" },
    });
    expect(failed).toEqual({
      type: EventType.SUBAGENT_ERROR,
      subagentRunId: "root/a.1",
      message: "boom",
    });
    const [done] = t.event({
      id: 2,
      type: "subagent_finished",
      data: { handle: "root/a.1", status: "done", text: "ok" },
    });
    expect(done).toEqual({
      type: EventType.SUBAGENT_FINISHED,
      subagentRunId: "root/a.1",
      outcome: { type: "success" },
      result: "ok",
    });
    // Malformed shapes are dropped, not guessed at.
    expect(t.event({ id: 3, type: "subagent_started", data: { name: "x" } })).toEqual([]);
  });

  it("become one data part per handle in the UI message stream, updated in place", () => {
    const t = new ChunkTranslator();
    const chunks = team.flatMap((e) =>
      e.type === "pending" ? t.pending(e, undefined).chunks : t.event(e),
    );
    const parts = foldChunks(chunks).filter((p) => p.type === "data-toolnexus-subagent");
    expect(parts).toEqual([
      {
        type: "data-toolnexus-subagent",
        id: "sub-root/coordinator.1",
        data: { handle: "root/coordinator.1", name: "coordinator", status: "running" },
      },
      {
        type: "data-toolnexus-subagent",
        id: "sub-root/coordinator.1/refunds.2",
        data: {
          handle: "root/coordinator.1/refunds.2",
          status: "pending",
          requestIds: ["apr_c1"],
        },
      },
    ]);
  });
});

describe("the stream's frames", () => {
  it("sends keep-alive comments while the pump waits, and stops them when it ends", async () => {
    let release: () => void = () => {};
    const waiting = new Promise<void>((resolve) => {
      release = resolve;
    });
    const response = sseResponse(
      async (sink) => {
        await sink.send('{"a":1}');
        await waiting;
        await sink.send('{"a":2}');
      },
      { onFailure: async () => {}, trailer: "[DONE]", keepAliveMs: 1 },
    );
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes(": keep-alive\n\n")) {
      const { value } = await reader.read();
      text += value ?? "";
    }
    release();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      text += value;
    }
    expect(text.startsWith('data: {"a":1}\n\n')).toBe(true);
    expect(text.endsWith('data: {"a":2}\n\ndata: [DONE]\n\n')).toBe(true);
    // Only whole frames and comments: every block is data or a comment.
    for (const block of text.split("\n\n").filter(Boolean)) {
      expect(block === ": keep-alive" || block.startsWith("data: ")).toBe(true);
    }
  });

  it("splits the object's frames (id, event, one data line)", () => {
    expect(parseFrame('id: 7\nevent: text\ndata: {"delta":"hi\\n"}')).toEqual({
      id: 7,
      type: "text",
      data: { delta: "hi\n" },
    });
    expect(parseFrame("id: 8\nevent: text")).toBeUndefined();
  });
});
