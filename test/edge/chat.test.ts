/**
 * POST /v1/chat/:agent — the AI SDK UI message stream over the demo agent: a refund that
 * needs approval streams its tool call and approval request and ends; the follow-up that
 * carries the approval continues with the tool's output and the answer.
 */
import { describe, expect, it } from "vitest";
import { getRun } from "../helpers/edge";
import { answeredAssistant, chatPost, readFrames, userMessage } from "../helpers/chat";

const chatId = () => `chat-${crypto.randomUUID()}`;

describe("useChat's round trip", () => {
  it("streams the approval request, then the approved refund and the answer", async () => {
    const id = chatId();
    const user = userMessage("refund $120 on order 42");
    const first = await chatPost({ id, messages: [user], trigger: "submit-message" });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(first.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = await readFrames(first);
    const types = frames.map((f) => f.type);
    expect(types[0]).toBe("start");
    expect(types.slice(-2)).toEqual(["tool-approval-request", "finish"]);
    const input = frames.find((f) => f.type === "tool-input-available");
    expect(input).toMatchObject({
      toolName: "refund_order",
      input: { orderId: "42", amount: 120 },
    });
    const request = frames.find((f) => f.type === "tool-approval-request");
    expect(request?.toolCallId).toBe(input?.toolCallId);

    const assistant = answeredAssistant(frames, { approved: true });
    const second = await chatPost({ id, messages: [user, assistant], trigger: "submit-message" });
    expect(second.status).toBe(200);
    const more = await readFrames(second);
    // It continues the message the client holds: no `start` (one naming no message does nothing).
    expect(more.map((f) => f.type)).not.toContain("start");
    // The decision part is named by the request's id; its data does not repeat it.
    expect(more.find((f) => f.type === "data-toolnexus-decision")).toEqual({
      type: "data-toolnexus-decision",
      id: request?.approvalId,
      data: { decision: "approve", channel: "chat" },
    });
    expect(more.find((f) => f.type === "tool-output-available")).toMatchObject({
      toolCallId: input?.toolCallId,
      output: "Refunded $120 on order 42",
    });
    const text = more
      .filter((f) => f.type === "text-delta")
      .map((f) => f.delta)
      .join("");
    expect(text).toMatch(/refund/i);
    expect(more.at(-1)).toEqual({ type: "finish", finishReason: "stop" });

    const runId = String(frames[0]?.messageId).slice(2);
    const run = await getRun(runId);
    expect(run.status).toBe("done");
    // Anonymous: the ledger records the channel as who decided.
    expect(run.decisions[0]).toMatchObject({
      channel: "chat",
      decidedBy: "chat",
      decision: "approve",
    });
  });
});
