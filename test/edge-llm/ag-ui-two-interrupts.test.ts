/**
 * AG-UI's rule "every open interrupt answered, or the rest stay open" with two interrupts
 * open at once: the fake model (test/fixtures/fake-llm-worker.js) asks for two refund
 * approvals in one turn ("two refunds"). A resume answering one decides that one and the
 * next RUN_FINISHED lists the other; a second resume answers the rest and the run
 * finishes; a resume repeated verbatim decides nothing again; a resume naming an interrupt
 * that is not open on this thread is a 4xx in our error shape and writes nothing.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { conversation } from "../../src/edge/protocols/conversation";
import type { EdgeEnv } from "../../src/edge/settings";
import { unpack } from "../../src/edge/packed";
import { getRun } from "../helpers/edge";
import { agUiPost, readFrames, runAgentInput, type Frame } from "../helpers/chat";

const TWO_REFUNDS = "two refunds please: $80 on order 42 and $120 on order 7";

interface Interrupt {
  id: string;
  message: string;
  toolCallId?: string;
}

const user = (content: string) => ({ id: `m_${crypto.randomUUID()}`, role: "user", content });
const finishedOf = (frames: Frame[]) => {
  const last = frames.at(-1) as Frame & { outcome?: { type: string; interrupts?: Interrupt[] } };
  expect(last.type).toBe("RUN_FINISHED");
  return last;
};
const interruptsOf = (frames: Frame[]) => {
  const { outcome } = finishedOf(frames);
  expect(outcome?.type).toBe("interrupt");
  return outcome?.interrupts ?? [];
};
const decisionsIn = (frames: Frame[]) =>
  frames
    .filter((f) => f.type === "CUSTOM" && f.name === "toolnexus.decision")
    .map((f) => f.value as { requestId: string; decision: string; channel: string });
const approve = (interrupt: Interrupt | undefined) => ({
  interruptId: String(interrupt?.id),
  status: "resolved",
  payload: { approved: true },
});

/** The thread an anonymous AG-UI `threadId` maps to: its stub, to read what was written. */
async function threadOf(threadId: string) {
  const { stub } = await conversation(env as unknown as EdgeEnv, null, threadId);
  const runs = await stub.runs();
  expect(runs).toHaveLength(1);
  const runId = String(runs[0]?.runId);
  /** What a refused resume must leave as it was: the run's decisions and its event log. */
  const written = async () => {
    const run = await getRun(runId);
    const events = await unpack(await stub.runEvents(runId));
    return {
      status: run.status,
      decisions: run.decisions.map((d) => [d.requestId, d.decision]),
      events: events.map((e) => [e.id, e.type]),
    };
  };
  return { stub, runId, written };
}

/** Polls until the run is paused with `requestId` as its surfaced request. */
async function haltedOn(runId: string, requestId: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = await getRun(runId);
    if (run.status === "pending" && run.pending?.id === requestId) {
      return run;
    }
    if (Date.now() > deadline) {
      throw new Error(`run ${runId} is ${run.status} on ${run.pending?.id}, wanted ${requestId}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a run on `threadId` that pauses on both refunds; returns the input and its interrupts. */
async function pausedOnTwo(threadId: string) {
  const message = user(TWO_REFUNDS);
  const input = runAgentInput(threadId, { messages: [message] });
  const interrupts = interruptsOf(await readFrames(await agUiPost(input)));
  return { message, interrupts };
}

describe("AG-UI: two interrupts open at once", () => {
  // The run surfaces the first call's request; the second is open beside it. Either may be
  // answered first: the sibling (the run stays halted on the first), or the surfaced one
  // (the run resumes, runs that refund and halts again on the sibling).
  for (const order of ["the sibling", "the surfaced one"] as const) {
    it(`a resume answering one (${order}) decides it and leaves the other open; the next answers the rest`, async () => {
      const threadId = `agui-${crypto.randomUUID()}`;
      const { message, interrupts } = await pausedOnTwo(threadId);
      expect(interrupts.map((i) => i.message)).toEqual([
        "Refund $80 on order 42?",
        "Refund $120 on order 7?",
      ]);
      expect(interrupts[0]?.toolCallId).toBeTruthy();
      expect(interrupts[1]?.toolCallId).toBeTruthy();
      expect(interrupts[0]?.toolCallId).not.toBe(interrupts[1]?.toolCallId);
      const [answered, left] = order === "the sibling" ? [...interrupts].reverse() : interrupts;
      const thread = await threadOf(threadId);

      // Only one: it is decided, the other stays open and is the one still listed.
      const onlyOne = [approve(answered)];
      const partly = await readFrames(
        await agUiPost(runAgentInput(threadId, { messages: [message], resume: onlyOne })),
      );
      expect(interruptsOf(partly).map((i) => i.id)).toEqual([left?.id]);
      // The surfaced one's drive runs after the answer (drive-now.ts): wait for the halt on the other.
      const afterOne = await haltedOn(thread.runId, String(left?.id));
      expect(afterOne.decisions.map((d) => [d.requestId, d.decision, d.channel])).toEqual([
        [answered?.id, "approve", "ag-ui"],
      ]);
      // The sibling's approval waits for the surfaced one; the surfaced one's refund runs.
      expect(afterOne.toolCalls.map((c) => c.output)).toEqual(
        order === "the sibling" ? [] : ["Refunded $80 on order 42"],
      );

      // The same resume verbatim: no second decision, the same interrupt still open.
      const repeated = await readFrames(
        await agUiPost(runAgentInput(threadId, { messages: [message], resume: onlyOne })),
      );
      expect(interruptsOf(repeated).map((i) => i.id)).toEqual([left?.id]);
      expect((await getRun(thread.runId)).decisions).toHaveLength(1);

      // The rest: the run finishes with both refunds done.
      const rest = await readFrames(
        await agUiPost(runAgentInput(threadId, { messages: [message], resume: [approve(left)] })),
      );
      expect(decisionsIn(rest)).toContainEqual({
        requestId: left?.id,
        decision: "approve",
        channel: "ag-ui",
      });
      expect(finishedOf(rest)).not.toHaveProperty("outcome"); // the success outcome
      const results = rest.filter((f) => f.type === "TOOL_CALL_RESULT");
      expect(results.map((f) => [f.toolCallId, f.content])).toContainEqual([
        left?.toolCallId,
        left === interrupts[0] ? "Refunded $80 on order 42" : "Refunded $120 on order 7",
      ]);
      const done = await getRun(thread.runId);
      expect(done.status).toBe("done");
      expect(done.toolCalls.map((c) => c.output).sort()).toEqual([
        "Refunded $120 on order 7",
        "Refunded $80 on order 42",
      ]);
      expect(done.decisions.map((d) => [d.requestId, d.decision]).sort()).toEqual(
        [
          [answered?.id, "approve"],
          [left?.id, "approve"],
        ].sort(),
      );

      // Both resumes again, verbatim: idempotent, nothing more is decided or run.
      for (const resume of [onlyOne, [approve(left)]]) {
        const again = await agUiPost(runAgentInput(threadId, { messages: [message], resume }));
        expect(again.status).toBe(200);
        expect(finishedOf(await readFrames(again))).not.toHaveProperty("outcome");
      }
      const after = await getRun(thread.runId);
      expect(after.decisions).toHaveLength(2);
      expect(after.toolCalls).toHaveLength(2);
    });
  }

  it("answering both in one resume finishes the run", async () => {
    const threadId = `agui-${crypto.randomUUID()}`;
    const { message, interrupts } = await pausedOnTwo(threadId);
    expect(interrupts).toHaveLength(2);
    const frames = await readFrames(
      await agUiPost(
        runAgentInput(threadId, { messages: [message], resume: interrupts.map(approve) }),
      ),
    );
    expect(finishedOf(frames)).not.toHaveProperty("outcome");
    expect(
      decisionsIn(frames)
        .map((d) => d.requestId)
        .sort(),
    ).toEqual(interrupts.map((i) => i.id).sort());
    expect((await getRun((await threadOf(threadId)).runId)).status).toBe("done");
  });

  it("a resume naming an interrupt that is not open on this thread is a 4xx and writes nothing", async () => {
    const here = `agui-${crypto.randomUUID()}`;
    const there = `agui-${crypto.randomUUID()}`;
    const { message, interrupts } = await pausedOnTwo(here);
    const { interrupts: foreign } = await pausedOnTwo(there);
    const thread = await threadOf(here);
    const other = await threadOf(there);
    const before = await thread.written();
    const otherBefore = await other.written();
    const post = (resume: unknown[]) =>
      agUiPost(runAgentInput(here, { messages: [message], resume }));
    const refusal = async (response: Response) => ({
      status: response.status,
      body: await response.json<{ error: { code: string; message: string; issues?: unknown[] } }>(),
    });

    // Another thread's open interrupt, alone and beside one that is open here.
    for (const resume of [[approve(foreign[0])], [approve(interrupts[0]), approve(foreign[1])]]) {
      const { status, body } = await refusal(await post(resume));
      expect(status).toBe(404);
      expect(body.error.code).toBe("interrupt_not_found");
      expect(body.error.message).toContain(String(resume.at(-1)?.interruptId));
      expect(body.error.issues).toEqual([
        { path: `resume[${resume.length - 1}].interruptId`, message: "unknown interrupt" },
      ]);
    }
    // An id no thread has.
    const { status, body } = await refusal(await post([approve({ id: "apr_nope", message: "" })]));
    expect(status).toBe(404);
    expect(body.error.code).toBe("interrupt_not_found");

    expect(await thread.written()).toEqual(before);
    expect(await other.written()).toEqual(otherBefore);

    // An interrupt of this thread that is decided already, answered otherwise: 409, unchanged.
    const decided = await post([approve(interrupts[0])]);
    expect(interruptsOf(await readFrames(decided)).map((i) => i.id)).toEqual([interrupts[1]?.id]);
    const settled = await thread.written();
    const declined = await refusal(
      await post([
        {
          interruptId: String(interrupts[0]?.id),
          status: "resolved",
          payload: { approved: false },
        },
      ]),
    );
    expect(declined.status).toBe(409);
    expect(declined.body.error.code).toBe("request_not_pending");
    expect(await thread.written()).toEqual(settled);
  });
});
