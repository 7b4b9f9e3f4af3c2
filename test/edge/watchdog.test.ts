/**
 * The watchdog refreshed as a drive makes progress (issue 26): while a run drives, the
 * thread's alarm stays within WATCHDOG_MS of its last progress and moves at most every
 * WATCHDOG_MOVE_MS; an alarm that fires while the drive still runs does not wait for it; a process killed mid-turn leaves an alarm that
 * resumes the run on a fresh object; and nothing keeps an alarm once no run has a timer.
 * No timing thresholds: alarm times are read from storage and compared with the clock.
 */
import { describe, expect, it } from "vitest";
import {
  abortAllDurableObjects,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import * as z from "zod";
import { defineTool } from "../../src/core/tools/define";
import { requireApproval } from "../../src/core/tools/approval";
import { defineAgent, type AgentDefinition } from "../../src/edge/agent";
import type { EdgeEnv } from "../../src/edge/settings";
import { supportAgent } from "../../src/edge/demo/agent";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { createThreadContext } from "../../durable/thread/context";
import { OutboxDelivery } from "../../durable/outbox/delivery";
import { startRun } from "../../durable/thread/runs";
import { onAlarm } from "../../durable/thread/on-alarm";
import { WATCHDOG_MS } from "../../durable/thread/alarms";
import { WATCHDOG_MOVE_MS } from "../../durable/thread/drive/watchdog";
import { getRun } from "../helpers/edge";
import { countBy, eventsOf, sleep, until } from "../helpers/durable";

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The object's modules over the real storage, with `agent` deployed. */
function threadContext(state: DurableObjectState, agent: AgentDefinition) {
  const t = createThreadContext(state, env as EdgeEnv, {
    options: { agents: [agent] },
    agents: new Map([[agent.name, agent]]),
    report: () => {},
  });
  return { t, delivery: new OutboxDelivery(t) };
}

/** `steps` turns, one gated `step` call each, then a reply. */
function steppingAgent(steps: number) {
  const entered: number[] = [];
  const gates = Array.from({ length: steps }, () => deferred());
  const step = defineTool<{ n: number }>({
    name: "step",
    description: "One step",
    inputSchema: z.object({ n: z.number() }),
    run: async ({ n }) => {
      entered.push(n);
      await gates[n - 1]!.promise;
      return `step ${n} done`;
    },
  });
  const agent = defineAgent({
    name: "stepper",
    description: "Steps",
    systemPrompt: "Step.",
    tools: [step],
    demoModel: (request) => {
      const done = request.messages.filter((m) => m.role === "tool").length;
      return done < steps
        ? { toolCalls: [{ id: `call_${done + 1}`, name: "step", arguments: { n: done + 1 } }] }
        : { content: "stepped" };
    },
  });
  return { agent, entered, gates };
}

const alarmOf = (state: DurableObjectState) => state.storage.getAlarm();

describe("the watchdog", { timeout: 30_000 }, () => {
  it("resumes a dead drive within seconds, not a minute", () => {
    // Issue 26: resumed within 10 s of the restart.
    expect(WATCHDOG_MS).toBeLessThanOrEqual(10_000);
  });

  it("moves with the drive's progress, at most every WATCHDOG_MOVE_MS; an alarm during the drive does not wait for it; gone when the run ends", async () => {
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const stub = env.THREADS.get(env.THREADS.idFromName(threadId));
    await runInDurableObject(stub, async (_instance, state) => {
      const { agent, entered, gates } = steppingAgent(3);
      const { t, delivery } = threadContext(state, agent);
      await startRun(t, delivery, {
        runId,
        threadId,
        agent: agent.name,
        input: "Step three times",
        publicUrl: "https://edge.test",
      });
      await until(() => entered.length === 1, "the first step to start");
      const first = await alarmOf(state);
      expect(first).not.toBeNull();
      expect(first!).toBeLessThanOrEqual(Date.now() + WATCHDOG_MS);

      // Once WATCHDOG_MOVE_MS have passed, the first step's result and the second turn's call
      // move the watchdog on.
      await sleep(WATCHDOG_MOVE_MS + 25);
      gates[0]!.resolve();
      await until(() => entered.length === 2, "the second step to start");
      const moved = await until(async () => {
        const at = await alarmOf(state);
        return at !== null && at > first! ? at : undefined;
      }, "the watchdog to move");
      expect(moved).toBeLessThanOrEqual(Date.now() + WATCHDOG_MS);

      // Progress right after a move leaves the alarm where it is: the second step's result and
      // the third turn's call, within WATCHDOG_MOVE_MS of the move, set nothing.
      gates[1]!.resolve();
      await until(() => entered.length === 3, "the third step to start");
      await sleep(25); // a refresh would have landed by now
      expect(await alarmOf(state)).toBe(moved);
      // Still within WATCHDOG_MS of the last progress: a process dying now is resumed in time.
      expect(moved!).toBeLessThanOrEqual(Date.now() + WATCHDOG_MS);

      // The alarm fires while the third step still runs: it neither waits for the drive nor
      // drives the run a second time, and the watchdog stays armed.
      await onAlarm(t, delivery);
      expect(entered).toEqual([1, 2, 3]);
      expect(t.store.requireRun(runId).status).toBe("running");
      const during = await alarmOf(state);
      expect(during).not.toBeNull();
      expect(during!).toBeLessThanOrEqual(Date.now() + WATCHDOG_MS);

      gates[2]!.resolve();
      await until(() => t.store.run(runId)?.status === "done", "the run to finish");
      await until(async () => (await alarmOf(state)) === null, "the alarm to go");
      expect(entered).toEqual([1, 2, 3]);
    });
  });

  it("a suspended run keeps only its expiry timer, not a watchdog", async () => {
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const stub = env.THREADS.get(env.THREADS.idFromName(threadId));
    const transfer = requireApproval(
      defineTool<{ amount: number }>({
        name: "transfer",
        description: "Transfer",
        inputSchema: z.object({ amount: z.number() }),
        run: ({ amount }) => `transferred ${amount}`,
      }),
      { prompt: "Transfer?" },
    );
    const agent = defineAgent({
      name: "transfers",
      description: "Transfers",
      systemPrompt: "Transfer.",
      tools: [transfer],
      demoModel: () => ({
        toolCalls: [{ id: "call_t", name: "transfer", arguments: { amount: 1 } }],
      }),
    });
    await runInDurableObject(stub, async (_instance, state) => {
      const { t, delivery } = threadContext(state, agent);
      await startRun(t, delivery, {
        runId,
        threadId,
        agent: agent.name,
        input: "Transfer 1",
        publicUrl: "https://edge.test",
      });
      await until(() => t.store.run(runId)?.status === "pending", "the run to suspend");
      const run = t.store.requireRun(runId);
      expect(run.expiresAt).not.toBeNull();
      await until(
        async () => (await alarmOf(state)) === run.expiresAt,
        "the alarm to be the request's expiry",
      );
      expect(run.expiresAt!).toBeGreaterThan(Date.now() + WATCHDOG_MS);
    });
  });

  it("a process killed mid-turn leaves the watchdog; the restarted object resumes the run at it and runs the call once", async () => {
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const stub = env.THREADS.get(env.THREADS.idFromName(threadId));
    // The support agent, whose lookup never returns in the process that dies.
    const entered: string[] = [];
    const stuck = defineTool<{ orderId: string }>({
      name: "lookup_order",
      description: "Look up an order",
      inputSchema: z.object({ orderId: z.string() }),
      run: () => {
        entered.push("lookup_order");
        return new Promise<string>(() => {});
      },
    });
    const dying = { ...supportAgent, tools: [stuck] };
    const watchdog = await runInDurableObject(stub, async (_instance, state) => {
      const { t, delivery } = threadContext(state, dying);
      await startRun(t, delivery, {
        runId,
        threadId,
        agent: "support",
        input: "Where is order 42?",
        publicUrl: "https://edge.test",
      });
      await until(() => entered.length === 1, "the lookup to start");
      const at = await alarmOf(state);
      expect(at).not.toBeNull();
      expect(at!).toBeLessThanOrEqual(Date.now() + WATCHDOG_MS);
      return at!;
    });
    await abortAllDurableObjects(); // the process dies mid-turn
    expect(watchdog).toBeGreaterThan(0);

    // The restarted object: its alarm is the watchdog the dead drive left.
    const restarted = env.THREADS.get(env.THREADS.idFromName(threadId));
    expect(await runDurableObjectAlarm(restarted)).toBe(true);
    const run = await getRun(runId);
    expect(run.status).toBe("done");
    expect(run.text).toBe("Order 42 is shipped: 1 × Wireless mouse (total $34.50).");
    expect(run.toolCalls.map((c) => c.name)).toEqual(["lookup_order"]);
    const events = await eventsOf(runId);
    expect(events.find((e) => e.type === "resumed")?.data).toMatchObject({
      reason: expect.stringMatching(/recovered/),
    });
    expect(countBy(events, (e) => e.type)).toMatchObject({ tool_result: 1, done: 1 });
  });
});
