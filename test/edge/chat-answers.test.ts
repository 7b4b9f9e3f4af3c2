/**
 * What a chat client's answers can carry: the version of the arguments the approval part
 * showed (a stale one is 409 args_changed, nothing written), edited input (only approvers
 * of ruled requests may edit, and the chatting user asked for the run: refused before
 * anything is written), an input request answered with `addToolOutput`'s part, and a new
 * message sent together with the approval while the run still goes (no 409 thread_busy).
 */
import { describe, expect, it } from "vitest";
import { getRun } from "../helpers/edge";
import {
  agUiPost,
  answeredAssistant,
  chatPost,
  readFrames,
  runAgentInput,
  userMessage,
  type Frame,
} from "../helpers/chat";

const chatId = () => `chat-${crypto.randomUUID()}`;
const codeOf = async (response: Response) =>
  (await response.json<{ error: { code: string } }>()).error.code;

/** The approval-responded part as `ai` keeps it: the stream's descriptor carried along. */
function approvedWith(frames: Frame[], descriptor: unknown) {
  const assistant = answeredAssistant(frames, { approved: true });
  const [part] = assistant.parts as Array<{ approval: Record<string, unknown> }>;
  if (part) {
    part.approval = { ...part.approval, descriptor };
  }
  return assistant;
}

describe("the version of the arguments", () => {
  it("is on the approval part; a stale one is refused 409 args_changed, the shown one accepted", async () => {
    const id = chatId();
    const user = userMessage("refund $120 on order 42");
    const frames = await readFrames(await chatPost({ id, messages: [user] }));
    const request = frames.find((f) => f.type === "tool-approval-request");
    const shown = (request?.approvalDescriptor as { argsHash?: string } | undefined)?.argsHash;
    expect(shown).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const stale = await chatPost({
      id,
      messages: [user, approvedWith(frames, { argsHash: "A".repeat(43) })],
    });
    expect(stale.status).toBe(409);
    expect(await codeOf(stale)).toBe("args_changed");
    const runId = String(frames[0]?.messageId).slice(2);
    expect((await getRun(runId)).status).toBe("pending"); // nothing written

    const fresh = await chatPost({
      id,
      messages: [user, approvedWith(frames, { argsHash: shown })],
    });
    expect(fresh.status).toBe(200);
    expect((await readFrames(fresh)).at(-1)).toEqual({ type: "finish", finishReason: "stop" });
  });

  it("AG-UI: the interrupt's metadata carries it; a stale payload argsHash is 409", async () => {
    const threadId = chatId();
    const message = { id: "m1", role: "user", content: "refund $120 on order 42" };
    const frames = await readFrames(
      await agUiPost(runAgentInput(threadId, { messages: [message] })),
    );
    const finished = frames.at(-1) as unknown as {
      outcome: { interrupts: Array<{ id: string; metadata?: { argsHash?: string } }> };
    };
    const [interrupt] = finished.outcome.interrupts;
    expect(interrupt?.metadata?.argsHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const resume = (argsHash: string) => [
      { interruptId: interrupt?.id, status: "resolved", payload: { approved: true, argsHash } },
    ];
    const stale = await agUiPost(runAgentInput(threadId, { resume: resume("B".repeat(43)) }));
    expect(stale.status).toBe(409);
    expect(await codeOf(stale)).toBe("args_changed");
    const ok = await agUiPost(
      runAgentInput(threadId, { resume: resume(String(interrupt?.metadata?.argsHash)) }),
    );
    expect(ok.status).toBe(200);
    const end = (await readFrames(ok)).at(-1);
    expect(end).toMatchObject({ type: "RUN_FINISHED" });
    expect(end).not.toHaveProperty("outcome"); // the success outcome
  });
});

describe("edited input", () => {
  it("is refused for a request without rules (400 not_editable) and for one's own ruled request (403)", async () => {
    const id = chatId();
    const user = userMessage("refund $120 on order 42");
    const frames = await readFrames(await chatPost({ id, messages: [user] }));
    const approvalId = String(frames.find((f) => f.type === "tool-approval-request")?.approvalId);
    const edited = await chatPost({
      id,
      messages: [user, answeredAssistant(frames, { approved: true })],
      edits: { [approvalId]: { orderId: "42", amount: 60 } },
    });
    expect(edited.status).toBe(400);
    expect(await codeOf(edited)).toBe("not_editable");
    expect((await getRun(String(frames[0]?.messageId).slice(2))).status).toBe("pending");

    // A ruled refund asked for by a finance member: four eyes, so not theirs to approve or edit.
    const headers = { "x-toolnexus-user": "ann@example.com" };
    const big = chatId();
    const bigUser = userMessage("refund $2000 on order 42");
    const live = await chatPost({ id: big, messages: [bigUser] }, headers);
    const reader = live.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("data-toolnexus-waiting")) {
      text += (await reader.read()).value ?? "";
    }
    await reader.cancel();
    const seen = text
      .split("\n\n")
      .filter((b) => b.startsWith("data: {"))
      .map((b) => JSON.parse(b.slice(6)) as Frame);
    const input = seen.find((f) => f.type === "tool-input-available");
    const waiting = seen.find((f) => f.type === "data-toolnexus-waiting");
    const requestId = String((waiting?.data as { requestId?: string } | undefined)?.requestId);
    const own = await chatPost(
      {
        id: big,
        messages: [
          bigUser,
          {
            id: String(seen[0]?.messageId),
            role: "assistant",
            parts: [
              {
                type: "tool-refund_order",
                toolCallId: input?.toolCallId,
                state: "approval-responded",
                input: input?.input,
                approval: { id: requestId, approved: true },
              },
            ],
          },
        ],
        edits: { [requestId]: { orderId: "42", amount: 1500 } },
      },
      headers,
    );
    expect(own.status).toBe(403);
    expect(await codeOf(own)).toBe("own_request");
  });
});

describe("input requests", () => {
  it("are answered with addToolOutput's part: the output becomes the answer", async () => {
    const id = chatId();
    const user = userMessage("please update my shipping address");
    const frames = await readFrames(await chatPost({ id, messages: [user] }));
    const input = frames.find((f) => f.type === "tool-input-available");
    expect(input?.toolName).toBe("ask_user");
    expect(frames.some((f) => f.type === "tool-approval-request")).toBe(true);
    // What addToolOutput leaves in the message: the tool part, output-available.
    const assistant = {
      id: String(frames[0]?.messageId),
      role: "assistant",
      parts: [
        {
          type: "tool-ask_user",
          toolCallId: input?.toolCallId,
          state: "output-available",
          input: input?.input,
          output: { answer: "1 Main St" },
        },
      ],
    };
    const answered = await chatPost({ id, messages: [user, assistant] });
    expect(answered.status).toBe(200);
    const more = await readFrames(answered);
    expect(more.find((f) => f.type === "tool-output-available")).toMatchObject({
      toolCallId: input?.toolCallId,
      output: "The user answered: 1 Main St",
    });
    expect(more.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
  });
});

describe("a new message sent with the approval", () => {
  it("is answered after the run the approval continues, not refused 409 thread_busy", async () => {
    const id = chatId();
    const user = userMessage("refund $120 on order 42");
    const frames = await readFrames(await chatPost({ id, messages: [user] }));
    const next = userMessage("what is the status of order 7?");
    const assistant = answeredAssistant(frames, { approved: true });
    const response = await chatPost({ id, messages: [user, assistant, next] });
    expect(response.status).toBe(200);
    const more = await readFrames(response);
    // This response is the new message's answer: its own message id, its own run.
    const start = more[0];
    expect(start?.type).toBe("start");
    expect(start?.messageId).not.toBe(frames[0]?.messageId);
    expect(more.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    const first = await getRun(String(frames[0]?.messageId).slice(2));
    expect(first.status).toBe("done");
    expect(first.decisions[0]).toMatchObject({ decision: "approve", channel: "chat" });
    const second = await getRun(String(start?.messageId).slice(2));
    expect(second.input).toBe("what is the status of order 7?");
    expect(second.status).toBe("done");

    // Sent again (a retry): the same run, not a third one.
    const again = await readFrames(await chatPost({ id, messages: [user, assistant, next] }));
    expect(again[0]?.messageId).toBe(start?.messageId);
  });

  it("still gets 409 thread_busy without any answer for the running run", async () => {
    const id = chatId();
    const user = userMessage("refund $120 on order 42");
    await readFrames(await chatPost({ id, messages: [user] }));
    const busy = await chatPost({ id, messages: [user, userMessage("hello?")] });
    expect(busy.status).toBe(409);
    expect(await codeOf(busy)).toBe("thread_busy");
  });
});
