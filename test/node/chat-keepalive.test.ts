/**
 * Keep-alive comments in the middle of a protocol stream, read by the published clients:
 * `ai`'s DefaultChatTransport + readUIMessageStream and `@ag-ui/client`'s HttpAgent get the
 * same message as without them. The stream is our writer's (src/edge/protocols/sse-writer.ts,
 * a 1 ms keep-alive here); the pump holds its last frames back until a comment went out.
 */
import { HttpAgent } from "@ag-ui/client";
import { DefaultChatTransport, readUIMessageStream } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sseResponse, type FrameSink } from "../../src/edge/protocols/sse-writer";

/** A response whose pump waits for a keep-alive between `before` and `after`; `raw` is what went over the wire. */
function streamWithKeepAlive(before: unknown[], after: unknown[], trailer?: string) {
  let seen: () => void = () => {};
  const keptAlive = new Promise<void>((resolve) => {
    seen = resolve;
  });
  const send = async (sink: FrameSink, frames: unknown[]) => {
    for (const frame of frames) {
      await sink.send(JSON.stringify(frame));
    }
  };
  const response = sseResponse(
    async (sink) => {
      await send(sink, before);
      await keptAlive;
      await send(sink, after);
    },
    {
      headers: { "x-vercel-ai-ui-message-stream": "v1" },
      onFailure: async () => {},
      ...(trailer === undefined ? {} : { trailer }),
      keepAliveMs: 1,
    },
  );
  const copy = response.clone();
  const raw = (async () => {
    const reader = copy.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        return text;
      }
      text += value;
      if (text.includes(": keep-alive\n\n")) {
        seen();
      }
    }
  })();
  return { response, raw };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("keep-alive comments", () => {
  it("are skipped by ai's transport and readUIMessageStream", async () => {
    const { response, raw } = streamWithKeepAlive(
      [
        { type: "start", messageId: "a-1" },
        { type: "text-start", id: "t1" },
        { type: "text-delta", id: "t1", delta: "Waiting for finance… " },
      ],
      [
        { type: "text-delta", id: "t1", delta: "approved." },
        { type: "text-end", id: "t1" },
        { type: "finish", finishReason: "stop" },
      ],
      "[DONE]",
    );
    const transport = new DefaultChatTransport({
      api: "http://edge.test/v1/chat/support",
      fetch: async () => response,
    });
    const stream = await transport.sendMessages({
      chatId: "c1",
      messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "refund" }] }],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
    });
    let last: { id: string; parts: Array<{ type: string; text?: string }> } | undefined;
    for await (const message of readUIMessageStream({ stream })) {
      last = message as typeof last;
    }
    expect(last?.id).toBe("a-1");
    expect(last?.parts.filter((p) => p.type === "text").map((p) => p.text)).toEqual([
      "Waiting for finance… approved.",
    ]);
    expect(await raw).toContain(": keep-alive\n\n");
  });

  it("are skipped by @ag-ui/client's HttpAgent", async () => {
    const { response, raw } = streamWithKeepAlive(
      [
        { type: "RUN_STARTED", threadId: "t1", runId: "r1" },
        { type: "TEXT_MESSAGE_START", messageId: "m9", role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "m9", delta: "Waiting… " },
      ],
      [
        { type: "TEXT_MESSAGE_CONTENT", messageId: "m9", delta: "approved." },
        { type: "TEXT_MESSAGE_END", messageId: "m9" },
        { type: "RUN_FINISHED", threadId: "t1", runId: "r1", outcome: { type: "success" } },
      ],
    );
    vi.stubGlobal("fetch", async () => response);
    const agent = new HttpAgent({ url: "http://edge.test/v1/ag-ui/support", threadId: "t1" });
    agent.addMessage({ id: "u1", role: "user", content: "refund" });
    await agent.runAgent({ runId: "r1" });
    const answer = agent.messages.find((m) => m.id === "m9");
    expect(answer?.content).toBe("Waiting… approved.");
    expect(await raw).toContain(": keep-alive\n\n");
  });
});
