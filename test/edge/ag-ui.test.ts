/**
 * POST /v1/ag-ui/:agent — AG-UI 1.0 over the demo agent: a refund pauses with an interrupt
 * outcome; the next RunAgentInput's `resume` approves it through the ledger (channel
 * ag-ui) and the run finishes; a repeated resume is a no-op, a foreign interrupt a 404.
 */
import { describe, expect, it } from "vitest";
import { agUiPost, readFrames, runAgentInput, type Frame } from "../helpers/chat";

const user = (content: string) => ({ id: `m_${crypto.randomUUID()}`, role: "user", content });
const interruptsOf = (frames: Frame[]) => {
  const finished = frames.at(-1) as {
    type: string;
    outcome?: { type: string; interrupts?: Frame[] };
  };
  expect(finished.type).toBe("RUN_FINISHED");
  expect(finished.outcome?.type).toBe("interrupt");
  return finished.outcome?.interrupts ?? [];
};

describe("AG-UI interrupts and resume", () => {
  it("pauses on the refund, resumes approved, and ignores a repeated resume", async () => {
    const threadId = `agui-${crypto.randomUUID()}`;
    const message = user("refund $120 on order 42");
    const first = await agUiPost(runAgentInput(threadId, { messages: [message] }));
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = await readFrames(first);
    expect(frames[0]).toMatchObject({ type: "RUN_STARTED", threadId });
    // A logged tool call is complete: one TOOL_CALL_CHUNK (start, args and end in one).
    const calls = frames.filter((f) => String(f.type).startsWith("TOOL_CALL_"));
    expect(calls.map((f) => f.type)).toEqual(["TOOL_CALL_CHUNK"]);
    const start = calls[0];
    expect(start).toMatchObject({ toolCallName: "refund_order" });
    expect(JSON.parse(String(start?.delta))).toEqual({ orderId: "42", amount: 120 });
    const [interrupt, ...rest] = interruptsOf(frames);
    expect(rest).toEqual([]);
    expect(interrupt).toMatchObject({
      reason: "tool_approval",
      message: "Refund $120 on order 42?",
      toolCallId: start?.toolCallId,
    });
    expect(Date.parse(String(interrupt?.expiresAt))).toBeGreaterThan(Date.now());

    const resume = [
      { interruptId: interrupt?.id, status: "resolved", payload: { approved: true } },
    ];
    const second = await agUiPost(runAgentInput(threadId, { messages: [message], resume }));
    expect(second.status).toBe(200);
    const more = await readFrames(second);
    expect(
      more.find((f) => f.type === "CUSTOM" && f.name === "toolnexus.decision")?.value,
    ).toMatchObject({
      requestId: interrupt?.id,
      decision: "approve",
      channel: "ag-ui",
    });
    expect(more.find((f) => f.type === "TOOL_CALL_RESULT")).toMatchObject({
      toolCallId: start?.toolCallId,
      content: "Refunded $120 on order 42",
    });
    const text = more.filter((f) => String(f.type).startsWith("TEXT_MESSAGE_"));
    expect(text.every((f) => f.type === "TEXT_MESSAGE_CHUNK")).toBe(true);
    expect(text[0]?.messageId).toMatch(/^m\d+$/); // the first chunk names the message
    expect(text.map((f) => f.delta).join("")).toMatch(/refund/i);
    // A success is RUN_FINISHED without an outcome (equivalent to `{ type: "success" }`).
    expect(more.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    expect(more.at(-1)).not.toHaveProperty("outcome");

    // The same resume again: nothing new is written, the stream replays the continuation.
    const again = await agUiPost(runAgentInput(threadId, { messages: [message], resume }));
    expect(again.status).toBe(200);
    expect((await readFrames(again)).at(-1)).toMatchObject({ type: "RUN_FINISHED" });

    // Another thread's interrupt is unknown here.
    const other = await agUiPost(runAgentInput(`agui-${crypto.randomUUID()}`, { resume }));
    expect(other.status).toBe(404);
    expect((await other.json<{ error: { code: string } }>()).error.code).toBe(
      "interrupt_not_found",
    );
  });

  it("declines with a reason, and the model says so", async () => {
    const threadId = `agui-${crypto.randomUUID()}`;
    const message = user("refund $80 on order 7");
    const [interrupt] = interruptsOf(
      await readFrames(await agUiPost(runAgentInput(threadId, { messages: [message] }))),
    );
    const resume = [
      {
        interruptId: interrupt?.id,
        status: "resolved",
        payload: { approved: false, reason: "not eligible" },
      },
    ];
    const frames = await readFrames(
      await agUiPost(runAgentInput(threadId, { messages: [message], resume })),
    );
    const result = frames.find((f) => f.type === "TOOL_CALL_RESULT");
    expect(String(result?.content)).toMatch(
      /^declined\/expired: Refund \$80 on order 7\?\nreason: not eligible/,
    );
    expect(frames.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    expect(frames.at(-1)).not.toHaveProperty("outcome");
    const started = frames[0] as unknown as { threadId: string };
    expect(started.threadId).toBe(threadId);
  });
});
