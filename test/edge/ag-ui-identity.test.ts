/**
 * AG-UI and who is asking: `x-toolnexus-user` is the run's `requestedBy` and the answer's
 * `decidedBy` (channel `ag-ui`); `context` and `state` reach the model as the README says
 * (a block after the user's text) and `state` is echoed as STATE_SNAPSHOT; a ruled request
 * is never offered to a caller who may not decide it — the stream says where it waits
 * (`CUSTOM toolnexus.waiting`) and goes on when the group decides.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { API_TOKEN, BASE, getRun, signedDecision } from "../helpers/edge";
import { agUiPost, frameReader, readFrames, runAgentInput, type Frame } from "../helpers/chat";

const threadOf = () => `agui-${crypto.randomUUID()}`;

/**
 * Our run id behind an AG-UI thread: the chat route's stream of the same conversation names
 * it in its first frame (read no further: for a caller who waits, that stream stays open).
 */
async function runOf(threadId: string, user?: string): Promise<string> {
  const response = await SELF.fetch(`${BASE}/v1/chat/support/${threadId}/stream`, {
    headers: {
      authorization: `Bearer ${API_TOKEN}`,
      ...(user ? { "x-toolnexus-user": user } : {}),
    },
  });
  const start = await frameReader(response).until((f) => f.type === "start");
  await response.body?.cancel().catch(() => {});
  return String(start.messageId).slice(2);
}

describe("AG-UI identity, context and state", () => {
  it("x-toolnexus-user asks and decides; context and state reach the model", async () => {
    const threadId = threadOf();
    const user = { "x-toolnexus-user": "ann@example.com" };
    const input = runAgentInput(threadId, {
      messages: [{ id: "m1", role: "user", content: "refund $120 on order 42" }],
      context: [{ description: "plan", value: "gold" }],
      state: { cart: 2 },
    });
    const frames = await readFrames(await agUiPost(input, user));
    expect(frames[1]).toEqual({ type: "STATE_SNAPSHOT", snapshot: { cart: 2 } });
    const finished = frames.at(-1) as { outcome?: { interrupts?: Array<{ id: string }> } };
    const interruptId = String(finished.outcome?.interrupts?.[0]?.id);

    const runId = await runOf(threadId, "ann@example.com");
    const asked = await getRun(runId, "?transcript=true");
    expect(asked.requestedBy).toBe("ann@example.com");
    const first = (asked.transcript as Array<{ role: string; content: unknown }>).find(
      (m) => m.role === "user",
    );
    expect(first?.content).toBe(
      'refund $120 on order 42\n\nContext:\n- plan: gold\n\nState: {"cart":2}',
    );

    const resume = [{ interruptId, status: "resolved", payload: { approved: true } }];
    // HttpAgent's default `state: {}` says nothing: no snapshot of it comes back.
    const done = await readFrames(await agUiPost({ ...input, state: {}, resume }, user));
    expect(done.some((f) => f.type === "STATE_SNAPSHOT")).toBe(false);
    expect(done.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    const decided = await getRun(runId);
    expect(decided.decisions).toMatchObject([
      {
        requestId: interruptId,
        decision: "approve",
        channel: "ag-ui",
        decidedBy: "ann@example.com",
      },
    ]);
  });

  it("a ruled request is not an interrupt for an anonymous caller: it waits, and goes on when finance decides", async () => {
    const threadId = threadOf();
    const live = frameReader(
      await agUiPost(
        runAgentInput(threadId, {
          messages: [{ id: "m1", role: "user", content: "refund $2000 on order 42" }],
        }),
      ),
    );
    const waiting = await live.until((f) => f.type === "CUSTOM" && f.name === "toolnexus.waiting");
    const value = waiting.value as { requestId: string; group: string; needed: number };
    expect(value).toMatchObject({ group: "finance", needed: 2, votes: 0 });

    // An anonymous answer to it is refused before anything is written.
    const refused = await agUiPost(
      runAgentInput(threadId, {
        resume: [{ interruptId: value.requestId, status: "resolved", payload: { approved: true } }],
      }),
    );
    expect(refused.status).toBe(403);

    const runId = await runOf(threadId);
    for (const member of ["ann@example.com", "bob@example.com"]) {
      const decided = await signedDecision({
        runId,
        requestId: value.requestId,
        decision: "approve",
        decidedBy: member,
      });
      expect(decided.status).toBe(202);
    }
    const result = await live.until((f: Frame) => f.type === "TOOL_CALL_RESULT");
    expect(result.content).toBe("Refunded $2000 on order 42");
    const end = await live.until((f: Frame) => f.type === "RUN_FINISHED");
    expect(end).not.toHaveProperty("outcome"); // success, never an interrupt for this caller
    expect(live.seen.some((f) => f.type === "RUN_FINISHED" && f !== end)).toBe(false);
  });

  it("a resume repeated by a group member is the identical repeat (200), not 409 (issue 37)", async () => {
    // bob's answers are recorded under his member id "bob"; he signs in as bob@example.com.
    const threadId = threadOf();
    const user = { "x-toolnexus-user": "Bob@Example.com" };
    const input = runAgentInput(threadId, {
      messages: [{ id: "m1", role: "user", content: "refund $120 on order 42" }],
    });
    const frames = await readFrames(await agUiPost(input, user));
    const finished = frames.at(-1) as { outcome?: { interrupts?: Array<{ id: string }> } };
    const interruptId = String(finished.outcome?.interrupts?.[0]?.id);
    const runId = await runOf(threadId, "bob@example.com");
    const resume = [{ interruptId, status: "resolved", payload: { approved: true } }];
    const first = await agUiPost({ ...input, resume }, user);
    expect(first.status).toBe(200);
    await readFrames(first);
    expect((await getRun(runId)).decisions).toMatchObject([{ decidedBy: "bob" }]);

    const repeat = await agUiPost({ ...input, resume }, user);
    expect(repeat.status).toBe(200);
    await repeat.text();
    expect((await getRun(runId)).decisions).toHaveLength(1);
  });
});
