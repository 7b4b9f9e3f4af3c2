/**
 * Exactly once per tool call: each call's result is stored as it completes, so recovery
 * after a crash mid-turn runs only the calls without a result. A three-call turn is crashed
 * after 0, 1, 2 and 3 completed calls; executions are counted per call.
 *
 * The crash: from a chosen point on, the driver's storage writes fail (as if the process
 * died there: nothing after it is committed), and a new driver recovers from storage.
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import * as z from "zod";
import { defineTool } from "../../src/core/tools/define";
import { defineAgent, type AgentDefinition } from "../../src/edge/agent";
import { readConfig, type EdgeEnv } from "../../src/edge/settings";
import { driveOnce, type DriverDeps } from "../../durable/thread/drive/driver";
import { InlineWaiters } from "../../durable/thread/drive/elicitation";
import { RunStore } from "../../durable/storage/run-store";
import { createLazySql } from "../../durable/storage/sql";
import { hasSchema, migrate } from "../../durable/storage/schema";
import { newRunId, newThreadId } from "../../src/edge/http/threads";

const CALLS = [1, 2, 3] as const;

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A "step" tool whose n-th call waits for its gate; every execution is counted with its ctx.callId. */
function stepsAgent() {
  const executions: Array<{ n: number; callId: string | undefined }> = [];
  const gates = new Map(CALLS.map((n) => [n, deferred()]));
  const step = defineTool({
    name: "step",
    description: "One step",
    inputSchema: z.object({ n: z.number() }),
    run: async ({ n }, ctx) => {
      executions.push({ n, callId: ctx.callId });
      await gates.get(n as 1 | 2 | 3)?.promise;
      return `step ${n} done`;
    },
  });
  const agent: AgentDefinition = defineAgent({
    name: "steps",
    description: "Three steps in one turn",
    systemPrompt: "Do the steps.",
    tools: [step],
    demoModel: (request) =>
      request.messages.at(-1)?.role === "user"
        ? {
            toolCalls: CALLS.map((n) => ({ id: `call_${n}`, name: "step", arguments: { n } })),
          }
        : { content: "all steps done" },
  });
  return { agent, executions, gates };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("exactly once per tool call across a crash mid-turn", () => {
  it.each([0, 1, 2, 3])(
    "crash after %i completed call(s): completed calls ran once, interrupted ones at most twice with the same callId",
    async (completed) => {
      const threadId = newThreadId();
      const runId = newRunId(threadId);
      const stub = env.THREADS.get(env.THREADS.idFromName(threadId));
      await runInDurableObject(stub, async (_instance, state) => {
        const store = new RunStore(createLazySql(state.storage.sql, { migrate, hasSchema }));
        const { agent, executions, gates } = stepsAgent();
        let crashed = false;
        let crashAt = completed; // stored call results at which the process "dies"
        const deps = (): DriverDeps => ({
          store,
          agents: new Map([[agent.name, agent]]),
          config: readConfig(env as EdgeEnv),
          env: env as unknown as Record<string, unknown>,
          now: () => Date.now(),
          transaction: (fn) => {
            if (crashed) {
              throw new Error("the process is gone");
            }
            const result = state.storage.transactionSync(fn);
            if (store.slots(runId).length >= crashAt) {
              crashed = true;
            }
            return result;
          },
          record: (id, type, data) => {
            if (!crashed) {
              store.appendEvent(id, { type, data }, Date.now());
            }
          },
          halted: async () => {},
          waiters: new InlineWaiters(),
          elicitationWindowMs: 0,
        });
        state.storage.transactionSync(() =>
          store.insertRun({
            runId,
            threadId,
            agent: agent.name,
            input: "Do all three steps",
            publicUrl: "https://edge.test",
            now: Date.now(),
            systemPrompt: agent.systemPrompt,
          }),
        );

        // The first driver: calls 1..completed finish one after another, then it dies.
        const dead = driveOnce(deps(), runId, new AbortController().signal).then(
          () => "finished",
          (error: unknown) => String(error),
        );
        for (const n of CALLS.slice(0, completed)) {
          await until(() => executions.length === 3, "all three calls to start");
          gates.get(n)!.resolve();
          await until(() => store.slots(runId).length >= n, `call ${n}'s stored result`);
        }
        await until(() => crashed, "the crash");
        for (const n of CALLS) {
          gates.get(n)!.resolve(); // the dead process's calls end too; nothing they do is stored
        }
        expect(await dead).toMatch(/the process is gone/);
        expect(store.slots(runId).map((s) => s.toolCallId)).toEqual(
          CALLS.slice(0, completed).map((n) => `call_${n}`),
        );

        // Recovery from storage.
        crashed = false;
        crashAt = Number.POSITIVE_INFINITY;
        expect(await driveOnce(deps(), runId, new AbortController().signal)).toBe(true);

        const run = store.requireRun(runId);
        expect(run.status).toBe("done");
        expect(run.text).toBe("all steps done");
        for (const n of CALLS) {
          const runs = executions.filter((e) => e.n === n);
          if (n <= completed) {
            expect(runs, `call ${n} completed before the crash`).toHaveLength(1);
          } else {
            expect(runs, `call ${n} was interrupted`).toHaveLength(2);
          }
          expect(new Set(runs.map((e) => e.callId))).toEqual(new Set([`call_${n}`]));
        }
        // One result per call in the transcript, the run's tool calls and the event log.
        const results = store
          .runMessages(runId)
          .filter((m) => m.role === "tool")
          .map((m) => (m.role === "tool" ? m.toolCallId : ""));
        expect(results).toEqual(["call_1", "call_2", "call_3"]);
        expect(store.toolCalls(runId).map((c) => c.id)).toEqual(["call_1", "call_2", "call_3"]);
        const events = store.eventsAfter(runId, 0).filter((e) => e.type === "tool_result");
        expect(events.map((e) => JSON.parse(e.data).id).sort()).toEqual([
          "call_1",
          "call_2",
          "call_3",
        ]);
      });
    },
  );
});
