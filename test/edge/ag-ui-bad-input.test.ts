/**
 * AG-UI input that must change nothing: a malformed RunAgentInput (400), a body over 1 MiB
 * (413), an input with nothing to run (400), and a `resume` any of whose entries is wrong —
 * an unknown interrupt (404), the same interrupt twice or a malformed payload (400). Every
 * entry is checked before any is recorded, so the good entry beside a bad one is not
 * decided either: the same input replayed still ends on the same open interrupt. An
 * interrupt past its `expiresAt` is `409`: its refund never runs.
 */
import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { API_TOKEN, BASE } from "../helpers/edge";
import { agUiPost, readFrames, runAgentInput, type Frame } from "../helpers/chat";

const threadOf = () => `agui-${crypto.randomUUID()}`;
const codeOf = async (response: Response) =>
  (await response.json<{ error: { code: string } }>()).error.code;
const message = { id: "m1", role: "user", content: "refund $120 on order 42" };

/** The conversation's active run, as the chat route sees the same id: 204 when none. */
const activeStream = (threadId: string) =>
  SELF.fetch(`${BASE}/v1/chat/support/${threadId}/stream`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });

const interruptsOf = (frames: Frame[]) =>
  (frames.at(-1) as { outcome?: { type: string; interrupts?: Array<{ id: string }> } }).outcome;

afterEach(() => {
  vi.useRealTimers();
});

describe("AG-UI bad input writes nothing", () => {
  it("refuses a malformed input, a body over 1 MiB and an input with nothing to run", async () => {
    const threadId = threadOf();
    const { threadId: _dropped, ...noThread } = runAgentInput(threadId, { messages: [message] });
    const malformed = await agUiPost(noThread);
    expect(malformed.status).toBe(400);
    expect(await codeOf(malformed)).toBe("invalid_body");
    expect(await codeOf(await agUiPost("{not json"))).toBe("invalid_json");
    const huge = await agUiPost(
      runAgentInput(threadId, {
        messages: [{ ...message, content: "x".repeat(1024 * 1024 + 1) }],
      }),
    );
    expect(huge.status).toBe(413);
    const nothing = await agUiPost(runAgentInput(threadId, { messages: [] }));
    expect(nothing.status).toBe(400);
    expect(await codeOf(nothing)).toBe("nothing_to_run");
    expect((await activeStream(threadId)).status).toBe(204); // no run was started
  });

  it("checks every resume entry before recording any", async () => {
    const threadId = threadOf();
    const input = runAgentInput(threadId, { messages: [message] });
    const first = interruptsOf(await readFrames(await agUiPost(input)));
    expect(first?.type).toBe("interrupt");
    const id = String(first?.interrupts?.[0]?.id);
    const approve = { interruptId: id, status: "resolved", payload: { approved: true } };

    const unknown = await agUiPost({
      ...input,
      resume: [approve, { interruptId: "apr_nope", status: "resolved", payload: {} }],
    });
    expect(unknown.status).toBe(404);
    expect(await codeOf(unknown)).toBe("interrupt_not_found");
    const twice = await agUiPost({ ...input, resume: [approve, approve] });
    expect(twice.status).toBe(400);
    const malformed = await agUiPost({
      ...input,
      resume: [{ ...approve, payload: { approved: true, extra: 1 } }],
    });
    expect(malformed.status).toBe(400);

    // Nothing was decided: the same input replays the run, still paused on the same interrupt.
    const replay = await readFrames(await agUiPost(input));
    expect(replay.some((f) => f.type === "CUSTOM" && f.name === "toolnexus.decision")).toBe(false);
    expect(interruptsOf(replay)?.interrupts?.map((i) => i.id)).toEqual([id]);

    const resumed = await readFrames(await agUiPost({ ...input, resume: [approve] }));
    expect(resumed.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    expect(interruptsOf(resumed)).toBeUndefined(); // the success outcome
  });

  it("refuses to resolve an interrupt past its expiresAt (409): the refund never runs", async () => {
    const threadId = threadOf();
    const input = runAgentInput(threadId, { messages: [message] });
    const paused = interruptsOf(await readFrames(await agUiPost(input))) as {
      interrupts?: Array<{ id: string; expiresAt?: string }>;
    };
    const [interrupt] = paused.interrupts ?? [];
    const expiresAt = Date.parse(String(interrupt?.expiresAt));
    expect(expiresAt).toBeGreaterThan(Date.now());

    // The clock past the expiry: our check refuses it (request_expired), unless the object,
    // reading the same clock, expired the request first (then it is no longer pending).
    vi.useFakeTimers({ toFake: ["Date"], now: expiresAt + 1_000 });
    let late: Response;
    try {
      late = await agUiPost({
        ...input,
        resume: [{ interruptId: interrupt?.id, status: "resolved", payload: { approved: true } }],
      });
    } finally {
      vi.useRealTimers();
    }
    expect(late.status).toBe(409);
    expect(["request_expired", "request_not_pending"]).toContain(await codeOf(late));
    const replay = await readFrames(await agUiPost(input));
    const decisions = replay
      .filter((f) => f.type === "CUSTOM" && f.name === "toolnexus.decision")
      .map((f) => (f.value as { decision: string }).decision);
    expect(decisions).not.toContain("approve");
    expect(replay.some((f) => f.content === "Refunded $120 on order 42")).toBe(false);
  });
});
