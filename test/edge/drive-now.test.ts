/**
 * Drive at once (issue 26): the thread object that records a decision, or starts a run,
 * drives it itself in the same invocation; the resume queue message is still sent, as the
 * backstop, and its delivery (or a duplicate, or a late one) finds the work done.
 *
 * The object is built here over a real Durable Object's storage with a resume queue that
 * records what is sent and never delivers it: whatever runs, runs without a queue delivery.
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import * as z from "zod";
import { defineTool } from "../../src/core/tools/define";
import { requireApproval } from "../../src/core/tools/approval";
import { defineAgent } from "../../src/edge/agent";
import type { EdgeEnv } from "../../src/edge/settings";
import type { DriveMessage } from "../../src/edge/protocol";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { createThreadContext, type ThreadContext } from "../../durable/thread/context";
import { OutboxDelivery } from "../../durable/outbox/delivery";
import { startRun } from "../../durable/thread/runs";
import { decideAny } from "../../durable/thread/decide";
import { drive } from "../../durable/thread/drive";
import { until } from "../helpers/durable";

/** An agent whose one tool needs approval and counts its executions. */
function transferAgent() {
  const executions: string[] = [];
  const transfer = requireApproval(
    defineTool<{ amount: number }>({
      name: "transfer",
      description: "Transfer money",
      inputSchema: z.object({ amount: z.number() }),
      run: ({ amount }, ctx) => {
        executions.push(ctx.callId ?? "?");
        return `transferred ${amount}`;
      },
    }),
    { prompt: (a) => `Transfer ${a.amount}?` },
  );
  const agent = defineAgent({
    name: "transfers",
    description: "Transfers with approval",
    systemPrompt: "Transfer when asked.",
    tools: [transfer],
    demoModel: (request) =>
      request.messages.at(-1)?.role === "user"
        ? { toolCalls: [{ id: "call_t", name: "transfer", arguments: { amount: 5 } }] }
        : { content: "transfer done" },
  });
  return { agent, executions };
}

/** A thread context whose resume queue only records what it is given (once `sendGate` lets it). */
function contextWithoutQueue(
  state: DurableObjectState,
  agent: ReturnType<typeof defineAgent>,
  extra: { sendGate?: Promise<void>; sendFails?: boolean; env?: Record<string, unknown> } = {},
) {
  const sent: DriveMessage[] = [];
  const reported: Error[] = [];
  const resumeQueue = {
    send: async (message: DriveMessage) => {
      sent.push(message);
      await extra.sendGate;
      if (extra.sendFails) {
        throw new Error("queue unavailable");
      }
    },
    sendBatch: async (messages: Iterable<{ body: DriveMessage }>) => {
      for (const m of messages) {
        sent.push(m.body);
      }
    },
  };
  const testEnv = { ...(env as EdgeEnv), RESUME_QUEUE: resumeQueue, ...extra.env } as EdgeEnv;
  const t: ThreadContext = createThreadContext(state, testEnv, {
    options: { agents: [agent] },
    agents: new Map([[agent.name, agent]]),
    report: (error) => void reported.push(error as Error),
  });
  return { t, delivery: new OutboxDelivery(t), sent, reported };
}

describe("drive at once", { timeout: 30_000 }, () => {
  it("a started run reaches its request, and a decision's tool runs, with no queue delivery; the backstop deliveries change nothing", async () => {
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const stub = env.THREADS.get(env.THREADS.idFromName(threadId));
    await runInDurableObject(stub, async (_instance, state) => {
      const { agent, executions } = transferAgent();
      const { t, delivery, sent } = contextWithoutQueue(state, agent);

      const started = await startRun(t, delivery, {
        runId,
        threadId,
        agent: agent.name,
        input: "Transfer 5",
        publicUrl: "https://edge.test",
      });
      expect(started.ok).toBe(true);
      // The backstop went to the queue, which never delivers it here.
      expect(sent).toEqual([{ threadId, runId }]);
      await until(() => t.store.run(runId)?.status === "pending", "the run to suspend");
      const request = t.store.requireRun(runId).pending!;
      expect(request).toMatchObject({ kind: "approval", prompt: "Transfer 5?" });
      expect(executions).toEqual([]);

      const decided = await decideAny(t, delivery, {
        runId,
        requestId: request.id,
        decision: "approve",
        channel: "webhook",
      });
      expect(decided).toMatchObject({ ok: true, duplicate: false });
      expect(sent).toHaveLength(2);
      await until(() => t.store.run(runId)?.status === "done", "the run to finish");
      expect(executions).toEqual(["call_t"]);
      const events = t.store.eventsAfter(runId, 0).map((e) => e.type);
      expect(events).toEqual(["tool_call", "pending", "resumed", "tool_result", "text", "done"]);

      // The two queue messages arrive after all (what the consumer does: drive the run),
      // one of them twice and two of them at once: nothing runs again.
      await Promise.all([drive(t, delivery, runId), drive(t, delivery, runId)]);
      await drive(t, delivery, runId);
      expect(executions).toEqual(["call_t"]);
      expect(t.store.eventsAfter(runId, 0).map((e) => e.type)).toEqual(events);
      expect(t.store.decision(request.id)?.appliedAt).not.toBeNull();
      // Nothing waits: no alarm is left behind.
      expect(await state.storage.getAlarm()).toBeNull();
    });
  });

  it("a duplicate decision arriving while the first one's drive runs is refused as a duplicate and drives nothing", async () => {
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const stub = env.THREADS.get(env.THREADS.idFromName(threadId));
    await runInDurableObject(stub, async (_instance, state) => {
      const { agent, executions } = transferAgent();
      const { t, delivery, sent } = contextWithoutQueue(state, agent);
      await startRun(t, delivery, {
        runId,
        threadId,
        agent: agent.name,
        input: "Transfer 5",
        publicUrl: "https://edge.test",
      });
      await until(() => t.store.run(runId)?.status === "pending", "the run to suspend");
      const request = t.store.requireRun(runId).pending!;
      const input = {
        runId,
        requestId: request.id,
        decision: "approve" as const,
        channel: "webhook" as const,
      };
      const [first, second] = await Promise.all([
        decideAny(t, delivery, input),
        decideAny(t, delivery, input),
      ]);
      expect([first, second].map((o) => o.ok && o.duplicate).sort()).toEqual([false, true]);
      await until(() => t.store.run(runId)?.status === "done", "the run to finish");
      expect(executions).toEqual(["call_t"]);
      expect(sent).toHaveLength(2); // the start's and the one recorded decision's
    });
  });

  it("the approved tool waits for none of the round trips: not the queue's send, not the inbox's and receipts' delivery (the answer waits for the delivery)", async () => {
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const stub = env.THREADS.get(env.THREADS.idFromName(threadId));
    await runInDurableObject(stub, async (_instance, state) => {
      const { agent, executions } = transferAgent();
      let open = () => {};
      const gate = new Promise<void>((resolve) => (open = resolve));
      // The receipts store and the queue answer only once the gate opens.
      let accepted = 0;
      const receipts = {
        idFromName: () => ({}),
        get: () => ({
          accept: async (signed: unknown[]) => {
            await gate;
            accepted += signed.length;
            return { accepted: signed.length };
          },
        }),
      };
      const { t, delivery, sent } = contextWithoutQueue(state, agent, {
        sendGate: gate,
        env: { RECEIPTS: receipts },
      });

      const started = await startRun(t, delivery, {
        runId,
        threadId,
        agent: agent.name,
        input: "Transfer 5",
        publicUrl: "https://edge.test",
      });
      expect(started.ok).toBe(true); // answered while its queue send still waits
      await until(() => t.store.run(runId)?.status === "pending", "the run to suspend");
      const request = t.store.requireRun(runId).pending!;

      let answered = false;
      const decided = decideAny(t, delivery, {
        runId,
        requestId: request.id,
        decision: "approve",
        channel: "webhook",
      }).then((outcome) => {
        answered = true;
        return outcome;
      });
      await until(() => t.store.run(runId)?.status === "done", "the run to finish, gate shut");
      expect(executions).toEqual(["call_t"]);
      expect(sent).toEqual([
        { threadId, runId },
        { threadId, runId },
      ]);
      expect(answered, "the answer waits for the inbox and receipts delivery").toBe(false);
      expect(accepted).toBe(0);

      open();
      expect(await decided).toMatchObject({ ok: true, duplicate: false });
      await until(() => accepted > 0, "the receipt to reach the store");
      await drive(t, delivery, runId); // the backstop delivery: nothing runs again
      expect(executions).toEqual(["call_t"]);
    });
  });

  it("a resume message the queue refuses is reported, not a failed start or decision: the run is driven anyway", async () => {
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const stub = env.THREADS.get(env.THREADS.idFromName(threadId));
    await runInDurableObject(stub, async (_instance, state) => {
      const { agent, executions } = transferAgent();
      const { t, delivery, reported } = contextWithoutQueue(state, agent, { sendFails: true });
      const started = await startRun(t, delivery, {
        runId,
        threadId,
        agent: agent.name,
        input: "Transfer 5",
        publicUrl: "https://edge.test",
      });
      expect(started.ok).toBe(true);
      await until(() => t.store.run(runId)?.status === "pending", "the run to suspend");
      await until(() => reported.length > 0, "the refused send to be reported");
      expect(reported[0]?.message).toBe("resume queue: send failed, the alarm drives the run");

      const request = t.store.requireRun(runId).pending!;
      const decided = await decideAny(t, delivery, {
        runId,
        requestId: request.id,
        decision: "approve",
        channel: "webhook",
      });
      expect(decided).toMatchObject({ ok: true, duplicate: false });
      await until(() => t.store.run(runId)?.status === "done", "the run to finish");
      expect(executions).toEqual(["call_t"]);
      await until(() => reported.length > 1, "the decision's refused send to be reported");
      await drive(t, delivery); // what the alarm does: nothing is left
      expect(executions).toEqual(["call_t"]);
      expect(await state.storage.getAlarm()).toBeNull();
    });
  });
});
