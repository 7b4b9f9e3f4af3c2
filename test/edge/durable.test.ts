/**
 * The thread Durable Object under the conditions it exists for: duplicate queue
 * deliveries, evictions and crashes between turns, expiry alarms, cancel/decision
 * races, concurrent drivers, the append-only transcript, and the approval page.
 */
import { migrate } from "../../durable/storage/schema";
import { createSql } from "../../durable/storage/sql";
import { describe, expect, it } from "vitest";
import {
  abortAllDurableObjects,
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
  SELF,
} from "cloudflare:test";
import worker from "../../src/worker";
import { errorOf } from "../helpers/http";
import { DECISION_BACKSTOP_MS } from "../../durable/thread/alarms";
import type { EdgeEnv } from "../../src/edge/settings";
import type { DriveMessage } from "../../src/edge/protocol";
import type { Message, ToolCall } from "../../src/core/types";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { supportAgent } from "../../src/edge/demo/agent";
import { createApprovalToken, digestArgs } from "../../src/edge/approvals/approval-token";
import {
  api,
  BASE,
  getRun,
  signedDecision,
  startRun,
  waitForStatus,
  WEBHOOK_SECRET,
} from "../helpers/edge";
import {
  countBy,
  eventsOf,
  inThread,
  messageRows,
  sleep,
  sqlIn,
  startPending,
  threadStub,
  transcriptOf,
  until,
} from "../helpers/durable";
import { recordOnly } from "../helpers/record-only";

const REFUND = "Please refund $80 on order 42";
const REFUND_PROMPT = "Refund $80 on order 42?";
const REFUNDED = "Done: Refunded $80 on order 42";
const ORDER_42 = "Order 42 is shipped: 1 × Wireless mouse (total $34.50).";
/** Long enough for the real resume queue (batch timeout 1 s) to have delivered what was sent. */
const QUEUE_SETTLE_MS = 1_800;

async function deliverResume(body: DriveMessage, attempts = 1) {
  const batch = createMessageBatch<DriveMessage>("toolnexus-resume", [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts, body },
  ]);
  const ctx = createExecutionContext();
  await worker.queue!(batch, env as Env & EdgeEnv, ctx);
  return getQueueResult(batch, ctx);
}

const roles = (messages: Message[]) => messages.map((m) => m.role);
const eventTypes = async (runId: string) => countBy(await eventsOf(runId), (e) => e.type);

/** Every message appears once, and every tool call has exactly one result. */
function expectBalanced(messages: Message[]): void {
  const bodies = messages.map((m) => JSON.stringify(m));
  expect(new Set(bodies).size, "no duplicate messages").toBe(bodies.length);
  const calls = messages.flatMap((m) =>
    m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : [],
  );
  const results = messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []));
  expect(results.slice().sort()).toEqual(calls.slice().sort());
  expect(
    messages.some((m) => m.role === "tool" && m.pending),
    "no placeholder left",
  ).toBe(false);
}

describe("queue redelivery", { timeout: 30_000 }, () => {
  it("runs the approved tool exactly once however often the resume message arrives", async () => {
    const { runId, threadId, request, stub } = await startPending(REFUND);
    expect(request).toMatchObject({
      kind: "approval",
      prompt: REFUND_PROMPT,
      data: { tool: "refund_order", args: { orderId: "42", amount: 80 } },
    });

    const decided = await stub.decide({
      runId,
      requestId: request.id,
      decision: "approve",
      channel: "webhook",
    });
    expect(decided).toMatchObject({ ok: true, duplicate: false });

    // The same message, delivered twice by the queue and raced by two direct drives.
    const [first, second] = await Promise.all([
      deliverResume({ threadId, runId }),
      deliverResume({ threadId, runId }, 2),
      stub.drive(runId),
      stub.drive(runId),
    ]);
    for (const result of [first, second]) {
      expect(result.outcome).toBe("ok");
      expect(result.retryMessages).toEqual([]);
      expect(result.explicitAcks).toHaveLength(1);
    }
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe(REFUNDED);

    // Redelivered after the run finished, and the real queue's own delivery lands too.
    expect((await deliverResume({ threadId, runId }, 3)).explicitAcks).toHaveLength(1);
    await sleep(QUEUE_SETTLE_MS);

    const run = await getRun(runId, "?transcript=true");
    expect(run.status).toBe("done");
    expect(run.toolCalls.filter((c) => c.name === "refund_order")).toEqual([
      {
        id: expect.any(String),
        name: "refund_order",
        args: { orderId: "42", amount: 80 },
        output: "Refunded $80 on order 42",
        isError: false,
        compensable: true, // refund_order can be taken back (docs/undo.md)
      },
    ]);
    expect(run.toolCallCount).toBe(1);
    expect(run.turns).toBe(2);
    expect(run.decisions).toHaveLength(1);
    expect(run.decisions[0]!.appliedAt).not.toBeNull();

    const events = await eventsOf(runId);
    expect(
      events.filter((e) => e.type === "tool_result" && e.data.name === "refund_order"),
    ).toHaveLength(1);
    expect(countBy(events, (e) => e.type)).toEqual({
      tool_call: 1,
      pending: 1,
      resumed: 1,
      tool_result: 1,
      text: 1,
      done: 1,
    });

    const transcript = run.transcript as Message[];
    expect(roles(transcript)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expectBalanced(transcript);
    expect((await messageRows(threadId)).length).toBe(transcript.length);
  });
});

describe("crashes", { timeout: 30_000 }, () => {
  it("a run parked across an eviction finishes from storage when the decision arrives", async () => {
    const { runId, request } = await startPending(REFUND);
    await abortAllDurableObjects();

    const parked = await getRun(runId);
    expect(parked.status).toBe("pending");
    expect(parked.pending).toEqual(request);

    const response = await signedDecision({ runId, requestId: request.id, decision: "approve" });
    expect(response.status).toBe(202);
    // Evicted again between recording the decision and the queue applying it.
    await abortAllDurableObjects();

    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe(REFUNDED);
    expect(done.toolCalls.map((c) => c.name)).toEqual(["refund_order"]);
    const transcript = await transcriptOf(runId);
    expect(roles(transcript)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expectBalanced(transcript);
  });

  it("a recorded decision whose drive and queue message never come is applied by the backstop alarm", async () => {
    const { runId, request, stub } = await startPending(REFUND);
    const before = Date.now();
    // The process dies after the record, before its drive and its queue message.
    const decided = await recordOnly({
      runId,
      requestId: request.id,
      decision: "approve",
      channel: "webhook",
    });
    expect(decided).toMatchObject({ ok: true, duplicate: false });
    const alarm = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(Date.now() + DECISION_BACKSTOP_MS);
    expect(alarm!).toBeGreaterThanOrEqual(before);

    // Nothing else drives it: the alarm alone finishes the run.
    expect((await getRun(runId)).status).toBe("pending");
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const run = await getRun(runId);
    expect(run.status).toBe("done");
    expect(run.text).toBe(REFUNDED);
    await sleep(QUEUE_SETTLE_MS);
    expect((await getRun(runId)).toolCalls).toHaveLength(1);
    expect(await eventTypes(runId)).toEqual({
      tool_call: 1,
      pending: 1,
      resumed: 1,
      tool_result: 1,
      text: 1,
      done: 1,
    });
  });

  /** A thread whose storage says: run `runId` is running, with `messages` committed after the user's input. */
  async function crashedRun(
    input: string,
    messages: Message[],
    toolCalls: Array<Record<string, unknown>> = [],
  ) {
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const stub = threadStub(threadId);
    await inThread(threadId, async (instance, state) => {
      const now = Date.now();
      state.storage.transactionSync(() => {
        instance.store.insertRun({
          runId,
          threadId,
          agent: "support",
          input,
          publicUrl: BASE,
          now,
          systemPrompt: supportAgent.systemPrompt,
        });
        instance.store.appendMessages(runId, messages);
        instance.store.appendToolCalls(runId, toolCalls as never);
        instance.store.update(
          runId,
          {
            turns: 1,
            model: "demo",
            usage: { promptTokens: 50, completionTokens: 10, totalTokens: 60 },
          },
          now,
        );
      });
      // The watchdog alarm the crashed driver had armed.
      await state.storage.setAlarm(now + 60_000);
    });
    return { threadId, runId, stub };
  }

  it("after the model's reply but before its tool calls ran: the alarm runs each missing call once and finishes", async () => {
    const calls: ToolCall[] = [
      { id: "call_0_0_crash", name: "lookup_order", arguments: JSON.stringify({ orderId: "42" }) },
      { id: "call_0_1_crash", name: "lookup_order", arguments: JSON.stringify({ orderId: "7" }) },
    ];
    const reply: Message = { role: "assistant", content: null, toolCalls: calls };
    const { threadId, runId, stub } = await crashedRun("Where are orders 42 and 7?", [reply]);

    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const run = await getRun(runId, "?transcript=true");
    expect(run.status).toBe("done");
    expect(run.turns).toBe(2);
    expect(run.text).toBe(
      `${ORDER_42}\nOrder 7 is processing: 2 × Wireless mouse, 1 × Noise-cancelling headphones (total $268.00).`,
    );
    expect(run.toolCalls.map((c) => [c.id, c.name, c.isError])).toEqual([
      ["call_0_0_crash", "lookup_order", false],
      ["call_0_1_crash", "lookup_order", false],
    ]);

    const transcript = run.transcript as Message[];
    expect(roles(transcript)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"]);
    expect(transcript[0]).toEqual({ role: "system", content: supportAgent.systemPrompt });
    expect(transcript[2]).toEqual(reply);
    expect(transcript.slice(3, 5).map((m) => (m.role === "tool" ? m.toolCallId : ""))).toEqual([
      "call_0_0_crash",
      "call_0_1_crash",
    ]);
    expectBalanced(transcript);
    expect((await messageRows(threadId)).map((r) => JSON.parse(r.body))).toEqual(transcript);

    const events = await eventsOf(runId);
    expect(events[0]).toMatchObject({
      type: "resumed",
      data: { reason: expect.stringMatching(/recovered/) },
    });
    expect(countBy(events, (e) => e.type)).toEqual({
      resumed: 1,
      tool_call: 2,
      tool_result: 2,
      text: 1,
      done: 1,
    });

    // Nothing left to do: a second alarm (or a late queue message) changes nothing.
    await runDurableObjectAlarm(stub);
    await stub.drive(runId);
    expect(await transcriptOf(runId)).toEqual(transcript);
    expect(await eventsOf(runId)).toEqual(events);
  });

  it("after a turn's tool results were committed: the alarm calls the model once and does not re-run the tools", async () => {
    const call: ToolCall = {
      id: "call_0_0_done",
      name: "refund_order",
      arguments: JSON.stringify({ orderId: "42", amount: 20 }),
    };
    const messages: Message[] = [
      { role: "assistant", content: null, toolCalls: [call] },
      {
        role: "tool",
        toolCallId: call.id,
        name: "refund_order",
        content: "Refunded $20 on order 42",
      },
    ];
    const entry = {
      id: call.id,
      name: "refund_order",
      args: { orderId: "42", amount: 20 },
      output: "Refunded $20 on order 42",
      isError: false,
    };
    const { runId, stub } = await crashedRun("Refund $20 on order 42", messages, [entry]);

    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const run = await getRun(runId, "?transcript=true");
    expect(run.status).toBe("done");
    expect(run.text).toBe("Done: Refunded $20 on order 42");
    expect(run.turns).toBe(2);
    expect(run.toolCalls).toEqual([entry]);
    const transcript = run.transcript as Message[];
    expect(roles(transcript)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(transcript.slice(2, 4)).toEqual(messages);
    expectBalanced(transcript);
    expect(await eventTypes(runId)).toEqual({ resumed: 1, text: 1, done: 1 });
  });
});

describe("several suspended calls in one turn", { timeout: 30_000 }, () => {
  it("surfaces the first, keeps the second's request, and applies each decision once whatever their order", async () => {
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const stub = threadStub(threadId);
    const refund: ToolCall = {
      id: "call_0_0_two",
      name: "refund_order",
      arguments: JSON.stringify({ orderId: "42", amount: 80 }),
    };
    const remove: ToolCall = { id: "call_0_1_two", name: "delete_account", arguments: "{}" };
    await inThread(threadId, async (instance, state) => {
      const now = Date.now();
      state.storage.transactionSync(() => {
        instance.store.insertRun({
          runId,
          threadId,
          agent: "support",
          input: "Refund $80 on order 42 and delete my account",
          publicUrl: BASE,
          now,
          systemPrompt: supportAgent.systemPrompt,
        });
        instance.store.appendMessages(runId, [
          { role: "assistant", content: null, toolCalls: [refund, remove] },
        ]);
        instance.store.update(runId, { turns: 1, model: "demo" }, now);
      });
      await state.storage.setAlarm(now + 60_000);
    });
    // Recovery runs both calls; both suspend; the first in call order is surfaced.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const parked = await getRun(runId);
    expect(parked.status).toBe("pending");
    expect(parked.pending).toMatchObject({ id: `apr_${refund.id}`, prompt: REFUND_PROMPT });
    expect(
      (await eventsOf(runId)).filter((e) => e.type === "pending").map((e) => e.data.request.id),
    ).toEqual([`apr_${refund.id}`, `apr_${remove.id}`]);

    // The sibling can be decided first (it is open): recorded, but nothing runs until the surfaced one is decided.
    const sibling = await signedDecision({
      runId,
      requestId: `apr_${remove.id}`,
      decision: "approve",
      decidedBy: "lead@example.com",
    });
    expect(sibling.status).toBe(202);
    await sleep(QUEUE_SETTLE_MS);
    const waiting = await getRun(runId);
    expect(waiting.status).toBe("pending");
    expect(waiting.pending?.id).toBe(`apr_${refund.id}`);
    expect(waiting.toolCalls).toEqual([]);

    expect(
      (await signedDecision({ runId, requestId: `apr_${refund.id}`, decision: "approve" })).status,
    ).toBe(202);
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe("Done: Refunded $80 on order 42\nDone: Account deleted");
    expect(done.toolCalls.map((c) => [c.id, c.output])).toEqual([
      [refund.id, "Refunded $80 on order 42"],
      [remove.id, "Account deleted"],
    ]);
    expect(done.decisions.map((d) => [d.requestId, d.decision, d.appliedAt !== null])).toEqual(
      expect.arrayContaining([
        [`apr_${refund.id}`, "approve", true],
        [`apr_${remove.id}`, "approve", true],
      ]),
    );
    const transcript = await transcriptOf(runId);
    expect(roles(transcript)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"]);
    expectBalanced(transcript);
    const events = await eventsOf(runId);
    expect(events.filter((e) => e.type === "tool_result").map((e) => e.data.id)).toEqual(
      expect.arrayContaining([refund.id, remove.id]),
    );
    expect(events.filter((e) => e.type === "tool_result")).toHaveLength(2);
    expect(events.filter((e) => e.type === "done")).toHaveLength(1);
  });
});

describe("expiry", { timeout: 30_000 }, () => {
  it("an expired request is declined with reason expired by the alarm; later decisions get 409", async () => {
    const { runId, threadId, request, stub, run: parked } = await startPending(REFUND);
    // The support agent's approval timeout is 15 minutes.
    expect(Date.parse(parked.expiresAt!) - Date.now()).toBeGreaterThan(14 * 60_000);
    const { approvalUrl } = await getRun(runId);
    expect(approvalUrl).toBeTruthy();

    // The expiry is armed as the object's alarm, so it fires with nobody watching (once the
    // approvals inbox's outbox is delivered: until then the alarm is the outbox's retry).
    const expiry = Date.parse(parked.expiresAt!);
    const alarm = await until(async () => {
      const at = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
      return at === expiry ? at : undefined;
    }, "the alarm to be the expiry");
    expect(alarm).toBe(expiry);

    await sqlIn(
      threadId,
      "UPDATE runs SET expires_at = ? WHERE run_id = ?",
      Date.now() - 1_000,
      runId,
    );
    // Past its expiry but before the alarm fired: already too late to decide.
    const tooLate = await signedDecision({ runId, requestId: request.id, decision: "approve" });
    expect(tooLate.status).toBe(409);
    expect(await tooLate.json()).toMatchObject({ error: { code: "request_expired" } });

    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const run = await waitForStatus(runId, ["done"]);
    expect(run.text).toBe("The approval request expired, so I did not refund $80 on order 42.");
    expect(run.decisions).toEqual([
      expect.objectContaining({
        requestId: request.id,
        decision: "expire",
        channel: "expiry",
        answer: { id: request.id, ok: false, reason: "expired" },
        appliedAt: expect.any(String),
      }),
    ]);
    expect(run.toolCalls).toEqual([
      expect.objectContaining({
        name: "refund_order",
        isError: true,
        // The edge tells the model why on a second line.
        output: `declined/expired: ${REFUND_PROMPT}\nreason: expired`,
      }),
    ]);
    expect(await eventTypes(runId)).toMatchObject({ pending: 1, resumed: 1, done: 1 });

    for (const decision of ["approve", "decline"] as const) {
      const after = await signedDecision({ runId, requestId: request.id, decision });
      expect(after.status).toBe(409);
    }
    const page = await SELF.fetch(approvalUrl!);
    expect(page.status).toBe(409);
    expect(await page.text()).toContain("expire");
    expect((await getRun(runId)).decisions).toHaveLength(1);
  });
});

describe("cancel and decision ordering", { timeout: 30_000 }, () => {
  it("cancel first: the decision is refused with 409 and the tool never runs", async () => {
    const { runId, request, stub } = await startPending(REFUND);
    const { approvalUrl } = await getRun(runId);

    const cancelled = await api(`/v1/runs/${runId}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ status: "cancelled" });

    const decision = await signedDecision({ runId, requestId: request.id, decision: "approve" });
    // DESIGN §4: 409 when the request is no longer pending (it existed; the run was cancelled).
    expect
      .soft(
        decision.status,
        `decision after cancel: ${JSON.stringify(await decision.clone().json())}`,
      )
      .toBe(409);
    const page = await SELF.fetch(approvalUrl!, {
      method: "POST",
      body: new URLSearchParams({ decision: "approve" }),
    });
    expect(page.status).toBe(409);

    await stub.drive(runId); // what the cancel's resume message does
    await sleep(QUEUE_SETTLE_MS);
    const run = await getRun(runId, "?transcript=true");
    expect(run.status).toBe("cancelled");
    expect(run.toolCalls).toEqual([]);
    expect(run.decisions).toEqual([]);
    expect(run.turns).toBe(1);
    expect(roles(run.transcript as Message[])).toEqual(["system", "user", "assistant", "tool"]);
    const events = await eventsOf(runId);
    expect(events.filter((e) => e.type === "tool_result")).toEqual([]);
    expect(events.filter((e) => e.type === "done").map((e) => e.data)).toEqual([
      { status: "cancelled" },
    ]);
  });

  it("decision first: the approved call's result is recorded once, the run stays cancelled and the model is not called again", async () => {
    const { runId, request, stub } = await startPending(REFUND);
    // Recorded, not applied yet (the object died before its drive), when the cancel comes.
    const decided = await recordOnly({
      runId,
      requestId: request.id,
      decision: "approve",
      channel: "webhook",
    });
    expect(decided).toMatchObject({ ok: true, duplicate: false });
    const cancelled = await stub.cancel(runId);
    expect(cancelled).toMatchObject({ ok: true, run: { status: "cancelled" } });

    await stub.drive(runId);
    const check = async () => {
      const run = await getRun(runId, "?transcript=true");
      expect(run.status).toBe("cancelled");
      expect(run.turns).toBe(1);
      expect(run.text).toBeNull();
      expect(run.toolCalls).toEqual([
        {
          id: expect.any(String),
          name: "refund_order",
          args: { orderId: "42", amount: 80 },
          output: "Refunded $80 on order 42",
          isError: false,
          compensable: true, // refund_order can be taken back (docs/undo.md)
        },
      ]);
      expect(run.decisions).toEqual([
        expect.objectContaining({ decision: "approve", appliedAt: expect.any(String) }),
      ]);
      const transcript = run.transcript as Message[];
      expect(roles(transcript)).toEqual(["system", "user", "assistant", "tool"]);
      expect(transcript[3]).toMatchObject({ role: "tool", content: "Refunded $80 on order 42" });
      expectBalanced(transcript);
      const events = await eventsOf(runId);
      expect(events.filter((e) => e.type === "tool_result")).toHaveLength(1);
      expect(events.filter((e) => e.type === "text")).toEqual([]);
      expect(events.filter((e) => e.type === "done").map((e) => e.data)).toEqual([
        { status: "cancelled" },
      ]);
      return run;
    };
    const first = await check();
    // The decision's and the cancel's queue messages arrive later: nothing changes.
    await sleep(QUEUE_SETTLE_MS);
    await runDurableObjectAlarm(stub);
    const second = await check();
    expect(second.transcript).toEqual(first.transcript);
  });

  it("a cancelled run's halted turn does not leave an unanswered tool call in the thread's next run", async () => {
    const { runId, threadId } = await startPending(REFUND);
    expect((await api(`/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(200);
    await threadStub(threadId).drive(runId); // what the cancel's resume message does

    const next = await startRun({ agent: "support", input: "Where is order 42?", threadId });
    const done = await waitForStatus(next.runId, ["done"]);
    expect(done.text).toBe(ORDER_42);

    // What the next run's model was sent: the thread's committed messages. DESIGN §3: always balanced.
    const thread = (await messageRows(threadId)).map((r) => JSON.parse(r.body) as Message);
    const calls = thread.flatMap((m) =>
      m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : [],
    );
    const answered = new Set(thread.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
    expect(
      calls.filter((id) => !answered.has(id)),
      "tool calls without a result in the thread transcript",
    ).toEqual([]);
  });

  it("a run started right after cancelling one whose decision is not applied yet: that decision still applies once, in order", async () => {
    const { runId, threadId, request, stub } = await startPending(REFUND);
    // Recorded, not applied yet (the object died before its drive), when the cancel comes.
    expect(
      await recordOnly({ runId, requestId: request.id, decision: "approve", channel: "webhook" }),
    ).toMatchObject({ ok: true, duplicate: false });
    expect(await stub.cancel(runId)).toMatchObject({ ok: true });
    // Before the decision is applied: the thread has no active run, so a new one may start (or be refused as busy).
    const nextRunId = newRunId(threadId);
    const started = await stub.start({
      runId: nextRunId,
      threadId,
      agent: "support",
      input: "Where is order 42?",
      publicUrl: BASE,
    });

    await stub.drive();
    await sleep(QUEUE_SETTLE_MS);
    const cancelled = await getRun(runId);
    expect(cancelled.status).toBe("cancelled");
    expect
      .soft(
        (await eventsOf(runId)).filter((e) => e.type === "resumed").length,
        "resumed events of the cancelled run",
      )
      .toBeLessThanOrEqual(1);
    expect(cancelled.decisions).toEqual([
      expect.objectContaining({ decision: "approve", appliedAt: expect.any(String) }),
    ]);
    expect(cancelled.toolCalls.map((c) => [c.name, c.output])).toEqual([
      ["refund_order", "Refunded $80 on order 42"],
    ]);
    if (started.ok) {
      expect((await getRun(nextRunId)).status).toBe("done");
    }

    const thread = (await messageRows(threadId)).map((r) => ({
      run: r.run_id,
      message: JSON.parse(r.body) as Message,
    }));
    // The cancelled run's rows all come before the next run's, and every call has its result.
    const firstOfNext = thread.findIndex((r) => r.run === nextRunId);
    if (firstOfNext >= 0) {
      expect(thread.slice(firstOfNext).every((r) => r.run === nextRunId)).toBe(true);
    }
    const calls = thread.flatMap((r) =>
      r.message.role === "assistant" ? (r.message.toolCalls ?? []).map((c) => c.id) : [],
    );
    const answered = new Set(
      thread.flatMap((r) => (r.message.role === "tool" ? [r.message.toolCallId] : [])),
    );
    expect(calls.filter((id) => !answered.has(id))).toEqual([]);
  });

  it("racing cancel and decision: either the decision is refused and nothing runs, or it applies once", async () => {
    const { runId, request } = await startPending(REFUND);
    const [decision, cancel] = await Promise.all([
      signedDecision({ runId, requestId: request.id, decision: "approve" }),
      api(`/v1/runs/${runId}/cancel`, { method: "POST" }),
    ]);
    // Whichever the object recorded first wins; the exact refusal status is pinned by "cancel first".
    expect(decision.status === 202 || (decision.status >= 400 && decision.status < 500)).toBe(true);
    if (cancel.status === 409) {
      // The decision came first and its drive finished the run before the cancel reached the
      // object: the cancel is refused as for any finished run, and the call ran once.
      expect(decision.status).toBe(202);
      expect((await errorOf(cancel)).code).toBe("run_not_active");
      await sleep(QUEUE_SETTLE_MS);
      const finished = await getRun(runId);
      expect(finished.status).toBe("done");
      expect(finished.toolCalls.map((c) => c.name)).toEqual(["refund_order"]);
      return;
    }
    expect(cancel.status).toBe(200);
    const expected = decision.status === 202 ? 1 : 0;
    const run = await until(async () => {
      const r = await getRun(runId);
      return r.toolCalls.length === expected && r.decisions.every((d) => d.appliedAt !== null)
        ? r
        : undefined;
    }, "the cancel and decision to settle");
    await sleep(QUEUE_SETTLE_MS);
    const settled = await getRun(runId);
    expect(settled.status).toBe("cancelled");
    expect(settled.turns).toBe(1);
    expect(settled.toolCalls).toEqual(run.toolCalls);
  });
});

describe("at most one driver", { timeout: 30_000 }, () => {
  it("concurrent drives, a queue delivery and the alarm produce each event and message once (start)", async () => {
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const stub = threadStub(threadId);
    const started = await stub.start({
      runId,
      threadId,
      agent: "support",
      input: "Where is order 42?",
      publicUrl: BASE,
    });
    expect(started).toMatchObject({ ok: true, run: { status: "running" } });

    await Promise.all([
      stub.drive(runId),
      stub.drive(runId),
      runDurableObjectAlarm(stub),
      deliverResume({ threadId, runId }),
      stub.drive(),
    ]);
    await sleep(QUEUE_SETTLE_MS); // the start's own queue message
    const run = await getRun(runId, "?transcript=true");
    expect(run.status).toBe("done");
    expect(run.text).toBe(ORDER_42);
    expect(run.turns).toBe(2);
    expect(run.toolCalls).toHaveLength(1);
    expect(roles(run.transcript as Message[])).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expectBalanced(run.transcript as Message[]);
    expect(await eventTypes(runId)).toEqual({ tool_call: 1, tool_result: 1, text: 1, done: 1 });
  });

  it("concurrent drives and the alarm apply a decision once (resume)", async () => {
    const { runId, threadId, request, stub } = await startPending(REFUND);
    await stub.decide({ runId, requestId: request.id, decision: "approve", channel: "webhook" });
    await Promise.all([
      stub.drive(runId),
      runDurableObjectAlarm(stub),
      stub.drive(runId),
      deliverResume({ threadId, runId }),
      runDurableObjectAlarm(stub),
    ]);
    const done = await waitForStatus(runId, ["done"]);
    await sleep(QUEUE_SETTLE_MS);
    expect((await getRun(runId)).updatedAt).toBe(done.updatedAt);
    const transcript = await transcriptOf(runId);
    expect(roles(transcript)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expectBalanced(transcript);
    expect(done.toolCalls.map((c) => c.name)).toEqual(["refund_order"]);
    expect(await eventTypes(runId)).toEqual({
      tool_call: 1,
      pending: 1,
      resumed: 1,
      tool_result: 1,
      text: 1,
      done: 1,
    });
  });
});

describe("append-only transcript", { timeout: 30_000 }, () => {
  async function withAudit(threadId: string): Promise<void> {
    await runInDurableObject(threadStub(threadId), (_instance, state) => {
      // A fresh object has no schema until its first write: create it, as that write would.
      migrate(createSql(state.storage.sql));
      const sql = state.storage.sql;
      sql.exec(
        "CREATE TABLE IF NOT EXISTS audit (op TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT)",
      );
      sql.exec(
        "CREATE TRIGGER IF NOT EXISTS messages_update AFTER UPDATE ON messages BEGIN INSERT INTO audit VALUES ('update', old.seq, old.body); END",
      );
      sql.exec(
        "CREATE TRIGGER IF NOT EXISTS messages_delete AFTER DELETE ON messages BEGIN INSERT INTO audit VALUES ('delete', old.seq, old.body); END",
      );
    });
  }

  it("rows are only ever appended: earlier rows stay byte-identical across suspension, resume and a second run", async () => {
    const threadId = newThreadId();
    await withAudit(threadId);

    const first = await startRun({ agent: "support", input: REFUND, threadId });
    const firstPending = await waitForStatus(first.runId, ["pending"]);
    const atSuspension = await messageRows(threadId);
    expect(atSuspension.map((r) => JSON.parse(r.body).role)).toEqual([
      "system",
      "user",
      "assistant",
    ]);
    // The halted turn's placeholder is part of the transcript but not a committed row.
    expect(roles(await transcriptOf(first.runId))).toEqual(["system", "user", "assistant", "tool"]);

    expect(
      (
        await signedDecision({
          runId: first.runId,
          requestId: firstPending.pending!.id,
          decision: "approve",
        })
      ).status,
    ).toBe(202);
    await waitForStatus(first.runId, ["done"]);
    const afterFirst = await messageRows(threadId);
    expect(afterFirst.slice(0, atSuspension.length)).toEqual(atSuspension);
    const firstTranscript = await transcriptOf(first.runId);
    expect(afterFirst).toHaveLength(firstTranscript.length);
    expect(afterFirst.map((r) => JSON.parse(r.body))).toEqual(firstTranscript);

    const second = await startRun({
      agent: "support",
      input: "Please delete my account",
      threadId,
    });
    const secondPending = await waitForStatus(second.runId, ["pending"]);
    const atSecondSuspension = await messageRows(threadId);
    expect(atSecondSuspension.slice(0, afterFirst.length)).toEqual(afterFirst);
    expect(
      (
        await signedDecision({
          runId: second.runId,
          requestId: secondPending.pending!.id,
          decision: "decline",
          decidedBy: "lead@example.com",
        })
      ).status,
    ).toBe(202);
    await waitForStatus(second.runId, ["done"]);

    const rows = await messageRows(threadId);
    expect(rows.slice(0, atSecondSuspension.length)).toEqual(atSecondSuspension);
    const secondTranscript = await transcriptOf(second.runId);
    expect(rows.filter((r) => r.run_id === first.runId).map((r) => JSON.parse(r.body))).toEqual(
      firstTranscript,
    );
    expect(rows.filter((r) => r.run_id === second.runId).map((r) => JSON.parse(r.body))).toEqual(
      secondTranscript,
    );
    expect(rows).toHaveLength(firstTranscript.length + secondTranscript.length);
    expect(rows.map((r) => r.seq)).toEqual([...rows.map((r) => r.seq)].sort((a, b) => a - b));

    expect(await sqlIn(threadId, "SELECT * FROM audit")).toEqual([]);
    expect(await sqlIn(threadId, "SELECT * FROM slots")).toEqual([]);
  });
});

describe("approval page over HTTP", { timeout: 30_000 }, () => {
  const form = (decision: string) => ({ method: "POST", body: new URLSearchParams({ decision }) });

  async function expectPage(response: Response, status: number, text: RegExp): Promise<string> {
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await response.text();
    expect(html).toMatch(text);
    expect(html).not.toMatch(/\bat .*\.(ts|js):\d+|TypeError|Internal Server Error/);
    return html;
  }

  it("GET renders without deciding; POST decides once via the page; bad links get clear pages", async () => {
    const { runId, threadId, request } = await startPending(REFUND);
    const { approvalUrl } = await getRun(runId);
    expect(approvalUrl).toMatch(new RegExp(`^${BASE}/approve/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));

    for (let i = 0; i < 3; i += 1) {
      const html = await expectPage(await SELF.fetch(approvalUrl!), 200, /Approval requested/);
      expect(html).toContain(`<p id="prompt">${REFUND_PROMPT}</p>`);
      expect(html).toContain("&quot;orderId&quot;: &quot;42&quot;");
      expect(html).toContain("&quot;amount&quot;: 80");
      expect(html).toContain('<code id="tool">refund_order</code>');
    }
    // A HEAD from a link scanner does not decide either.
    await SELF.fetch(approvalUrl!, { method: "HEAD" });
    const stillPending = await getRun(runId);
    expect(stillPending.status).toBe("pending");
    expect(stillPending.decisions).toEqual([]);

    // Tampered: one character of the claims changed.
    const token = approvalUrl!.slice(`${BASE}/approve/`.length);
    const i = 12;
    const tampered = token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1);
    await expectPage(await SELF.fetch(`${BASE}/approve/${tampered}`), 400, /Invalid link/);
    await expectPage(
      await SELF.fetch(`${BASE}/approve/${tampered}`, form("approve")),
      400,
      /Invalid link/,
    );
    await expectPage(await SELF.fetch(`${BASE}/approve/not-a-token`), 400, /Invalid link/);

    const args = request.data!.args;
    const now = Math.floor(Date.now() / 1000);
    const expired = await createApprovalToken(WEBHOOK_SECRET, {
      threadId,
      runId,
      requestId: request.id,
      argsDigest: await digestArgs(args),
      exp: now - 60,
    });
    await expectPage(await SELF.fetch(`${BASE}/approve/${expired}`), 410, /expired/);
    await expectPage(
      await SELF.fetch(`${BASE}/approve/${expired}`, form("approve")),
      410,
      /expired/,
    );

    const swapped = await createApprovalToken(WEBHOOK_SECRET, {
      threadId,
      runId,
      requestId: request.id,
      argsDigest: await digestArgs({ orderId: "42", amount: 8_000 }),
      exp: now + 600,
    });
    await expectPage(await SELF.fetch(`${BASE}/approve/${swapped}`), 400, /does not match/);
    await expectPage(
      await SELF.fetch(`${BASE}/approve/${swapped}`, form("approve")),
      400,
      /does not match/,
    );

    const unchanged = await getRun(runId);
    expect(unchanged.status).toBe("pending");
    expect(unchanged.decisions).toEqual([]);

    await expectPage(
      await SELF.fetch(approvalUrl!, form("approve")),
      200,
      /Decision recorded: approved/,
    );
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe(REFUNDED);
    expect(done.decisions).toEqual([
      expect.objectContaining({
        requestId: request.id,
        decision: "approve",
        channel: "page",
        decidedBy: "anonymous link",
        answer: { id: request.id, ok: true },
      }),
    ]);

    await expectPage(await SELF.fetch(approvalUrl!, form("approve")), 409, /Already decided/);
    expect(
      await SELF.fetch(approvalUrl!, {
        method: "POST",
        body: new URLSearchParams({ decision: "maybe" }),
      }).then((r) => r.status),
    ).toBe(409);
    await expectPage(await SELF.fetch(approvalUrl!, form("decline")), 409, /Already decided/);
    await expectPage(await SELF.fetch(approvalUrl!), 409, /Already decided/);
    expect((await getRun(runId)).decisions).toHaveLength(1);
    expect((await getRun(runId)).toolCalls).toHaveLength(1);
  });
});

describe("approval page: decline with a reason", { timeout: 30_000 }, () => {
  it("records the reason, which the model sees", async () => {
    const { runId, request } = await startPending(REFUND);
    const { approvalUrl } = await getRun(runId);
    const response = await SELF.fetch(approvalUrl!, {
      method: "POST",
      body: new URLSearchParams({ decision: "decline", reason: "  too much  " }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Decision recorded: declined");
    const done = await waitForStatus(runId, ["done"]);
    expect(done.decisions).toEqual([
      expect.objectContaining({
        decision: "decline",
        channel: "page",
        answer: { id: request.id, ok: false, reason: "too much" },
      }),
    ]);
    expect(done.text).toBe(
      "Understood — I did not refund $80 on order 42 because it was declined (too much).",
    );
    expect(done.toolCalls).toEqual([
      expect.objectContaining({ name: "refund_order", isError: true }),
    ]);
  });
});
