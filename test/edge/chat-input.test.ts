/**
 * The chat and AG-UI routes' edges: bad bodies (nothing written), unknown and settled
 * approvals, identity-scoped conversations, anonymous callers and ruled requests, CORS.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { API_TOKEN, BASE, getRun, signedDecision } from "../helpers/edge";
import {
  agUiPost,
  answeredAssistant,
  chatPost,
  frameReader,
  readFrames,
  runAgentInput,
  userMessage,
} from "../helpers/chat";

const chatId = () => `chat-${crypto.randomUUID()}`;
const codeOf = async (response: Response) =>
  (await response.json<{ error: { code: string } }>()).error.code;

async function pendingChat(text: string, headers: Record<string, string> = {}) {
  const id = chatId();
  const user = userMessage(text);
  const frames = await readFrames(await chatPost({ id, messages: [user] }, headers));
  return { id, user, frames };
}

describe("bad input writes nothing", () => {
  it("refuses malformed message lists, empty messages and a body over 1 MiB", async () => {
    const id = chatId();
    expect(await codeOf(await chatPost({ id, messages: "hi" }))).toBe("invalid_body");
    expect(await codeOf(await chatPost({ id, messages: [] }))).toBe("invalid_body");
    expect(
      await codeOf(await chatPost({ id, messages: [{ id: "x", role: "robot", parts: [] }] })),
    ).toBe("invalid_body");
    expect(await codeOf(await chatPost({ id, messages: [userMessage("   ")] }))).toBe(
      "invalid_body",
    );
    expect(await codeOf(await chatPost("{not json"))).toBe("invalid_json");
    const huge = await chatPost({ id, messages: [userMessage("x".repeat(1024 * 1024 + 1))] });
    expect(huge.status).toBe(413);
    const regenerate = await chatPost({
      id,
      messages: [userMessage("hi")],
      trigger: "regenerate-message",
    });
    expect(regenerate.status).toBe(400);
    // None of it started a conversation.
    const stream = await SELF.fetch(`${BASE}/v1/chat/support/${id}/stream`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(stream.status).toBe(204);
    const messages = await SELF.fetch(`${BASE}/v1/chat/support/${id}/messages`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(await messages.json()).toEqual({ messages: [] });
  });

  it("answers an unknown approval 404 and a settled one 409", async () => {
    const { id, user, frames } = await pendingChat("refund $120 on order 42");
    const forged = answeredAssistant(
      frames.map((f) =>
        f.type === "tool-approval-request" ? { ...f, approvalId: "req_nope" } : f,
      ),
      { approved: true },
    );
    const unknown = await chatPost({ id, messages: [user, forged] });
    expect(unknown.status).toBe(404);
    const runId = String(frames[0]?.messageId).slice(2);
    const untouched = await getRun(runId);
    expect(untouched.status).toBe("pending"); // nothing written
    expect(untouched.decisions).toEqual([]);
    const approve = answeredAssistant(frames, { approved: true });
    expect((await chatPost({ id, messages: [user, approve] })).status).toBe(200);
    const decline = answeredAssistant(frames, { approved: false });
    const settled = await chatPost({ id, messages: [user, decline] });
    expect(settled.status).toBe(409);
    // The recorded approval stands; the late decline added nothing.
    const decided = await getRun(runId);
    expect(decided.decisions.map((d) => [d.decision, d.channel])).toEqual([["approve", "chat"]]);
  });

  it("refuses an approval past the request's expiry (409), recording no approval", async () => {
    const { id, user, frames } = await pendingChat("refund $120 on order 42");
    const runId = String(frames[0]?.messageId).slice(2);
    const expiresAt = Date.parse(String((await getRun(runId)).expiresAt));
    expect(expiresAt).toBeGreaterThan(Date.now());
    // The clock past the expiry: our check refuses it (request_expired), unless the object,
    // reading the same clock, expired the request first (then it is no longer pending).
    vi.useFakeTimers({ toFake: ["Date"], now: expiresAt + 1_000 });
    let late: Response;
    try {
      late = await chatPost({
        id,
        messages: [user, answeredAssistant(frames, { approved: true })],
      });
    } finally {
      vi.useRealTimers();
    }
    expect(late.status).toBe(409);
    expect(["request_expired", "request_not_pending"]).toContain(await codeOf(late));
    const after = await getRun(runId);
    expect(after.decisions.filter((d) => d.decision === "approve")).toEqual([]);
    expect(after.text ?? "").not.toMatch(/Refunded \$120/);
  });

  it("refuses AG-UI frontend tools by name and a malformed approval payload", async () => {
    const tools = [{ name: "confirm_dialog", description: "d", parameters: {} }];
    const refused = await agUiPost(runAgentInput(chatId(), { messages: [], tools }));
    expect(refused.status).toBe(400);
    const body = await refused.json<{ error: { code: string; message: string } }>();
    expect(body.error.code).toBe("unsupported_tools");
    expect(body.error.message).toContain("confirm_dialog");

    const threadId = chatId();
    const message = { id: "m1", role: "user", content: "refund $120 on order 42" };
    const frames = await readFrames(
      await agUiPost(runAgentInput(threadId, { messages: [message] })),
    );
    const finished = frames.at(-1) as unknown as { outcome: { interrupts: Array<{ id: string }> } };
    const interruptId = finished.outcome.interrupts[0]?.id;
    const bad = await agUiPost(
      runAgentInput(threadId, {
        resume: [{ interruptId, status: "resolved", payload: { approved: "yes" } }],
      }),
    );
    expect(bad.status).toBe(400);
  });
});

describe("identity", () => {
  it("maps one chat id to different conversations per user", async () => {
    const { id } = await pendingChat("refund $120 on order 42", {
      "x-toolnexus-user": "ann@example.com",
    });
    const mine = await SELF.fetch(`${BASE}/v1/chat/support/${id}/messages`, {
      headers: { authorization: `Bearer ${API_TOKEN}`, "x-toolnexus-user": "ANN@example.com" },
    });
    expect((await mine.json<{ messages: unknown[] }>()).messages).toHaveLength(1);
    const theirs = await SELF.fetch(`${BASE}/v1/chat/support/${id}/messages`, {
      headers: { authorization: `Bearer ${API_TOKEN}`, "x-toolnexus-user": "bob@example.com" },
    });
    expect(await theirs.json()).toEqual({ messages: [] });
    const anonymous = await SELF.fetch(`${BASE}/v1/chat/support/${id}/stream`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(anonymous.status).toBe(204);
  });

  it("lets an anonymous caller wait on a ruled request, not decide it, and go on when finance decides", async () => {
    const id = chatId();
    const user = userMessage("refund $2000 on order 42");
    const live = frameReader(await chatPost({ id, messages: [user] }));
    const start = await live.until((f) => f.type === "start");
    const waiting = await live.until((f) => f.type === "data-toolnexus-waiting");
    expect(waiting.data).toMatchObject({ group: "finance", needed: 2, votes: 0 });
    expect(String((waiting.data as { inboxUrl: string }).inboxUrl)).toMatch(/\/inbox$/);
    expect(live.seen.some((f) => f.type === "tool-approval-request")).toBe(false);

    // An anonymous approval of a ruled request is refused before anything is written.
    const requestId = String((waiting.data as { requestId: string }).requestId);
    const input = live.seen.find((f) => f.type === "tool-input-available");
    const forged = {
      id: String(start.messageId),
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
    };
    const refused = await chatPost({ id, messages: [user, forged] });
    expect(refused.status).toBe(403);

    const runId = String(start.messageId).slice(2);
    for (const member of ["ann@example.com", "bob@example.com"]) {
      const decided = await signedDecision({
        runId,
        requestId,
        decision: "approve",
        decidedBy: member,
      });
      expect(decided.status).toBe(202);
    }
    const output = await live.until((f) => f.type === "tool-output-available");
    expect(output.output).toBe("Refunded $2000 on order 42");
    expect(await live.until((f) => f.type === "finish")).toEqual({
      type: "finish",
      finishReason: "stop",
    });
  });

  it("needs the token (or Access)", async () => {
    const response = await SELF.fetch(`${BASE}/v1/chat/support`, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
  });
});

describe("CORS", () => {
  it("answers a listed origin's preflight and decorates its responses; others get nothing", async () => {
    const preflight = await SELF.fetch(`${BASE}/v1/chat/support`, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, x-toolnexus-user",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.test");
    expect(preflight.headers.get("access-control-allow-headers")).toBe(
      "authorization, content-type, x-toolnexus-user",
    );
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull(); // no Access here

    const other = await SELF.fetch(`${BASE}/v1/ag-ui/support`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.test", "access-control-request-method": "POST" },
    });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();

    const error = await SELF.fetch(`${BASE}/v1/chat/support`, {
      method: "POST",
      headers: {
        origin: "https://app.test",
        authorization: `Bearer ${API_TOKEN}`,
        "content-type": "application/json",
      },
      body: "{}",
    });
    expect(error.status).toBe(400);
    expect(error.headers.get("access-control-allow-origin")).toBe("https://app.test");
    // A body not declared JSON is refused before it is read (issue 37), decorated all the same.
    const plain = await SELF.fetch(`${BASE}/v1/chat/support`, {
      method: "POST",
      headers: { origin: "https://app.test", authorization: `Bearer ${API_TOKEN}` },
      body: "{}",
    });
    expect(plain.status).toBe(415);
    expect(plain.headers.get("access-control-allow-origin")).toBe("https://app.test");
  });
});
