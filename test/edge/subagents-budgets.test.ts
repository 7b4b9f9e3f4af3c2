/**
 * Issue 24, hierarchical budgets at the edge (SPEC §7D): `maxTokens`, `maxToolCalls`,
 * `maxWallMs` and `maxConcurrent` along the ancestor chain of a tree in the thread's Durable
 * Object, walked live before every model call and every child step. A limit stop is
 * `incomplete` with the limit named (the child's `task` result says whose budget it was).
 * Scripted models; "an hour later" is the stored clock moved back, not a wait.
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { createEdge } from "../../src/create-edge";
import { defineAgent } from "../../src/edge/agent";
import { defineTool } from "../../src/core/tools/define";
import { requireApproval } from "../../src/core/tools/approval";
import type { Budget } from "../../src/core/agents/types";
import type { Message } from "../../src/core/types";
import type { ModelRequest } from "../../src/core/providers/model";
import type { RunView } from "../../src/edge/protocol";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { BASE } from "../helpers/edge";
import { threadStub } from "../helpers/durable";

type Object_ = InstanceType<ReturnType<typeof createEdge>["ThreadObject"]>;
type TreeView = Array<{ handle: string; state: string; turns: number }>;

const tokens = (n: number) => ({ promptTokens: n, completionTokens: 0, totalTokens: n });
const toolResults = (request: ModelRequest) =>
  request.messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");

function rig(opts: {
  coordinator?: Budget;
  worker?: Budget;
  tasks?: number;
  /** Tool results the worker wants before it answers. */
  pings?: number;
  onWorkerCall?: () => Promise<void>;
}) {
  const log = { coordinatorCalls: 0, pings: 0, refunds: 0 };
  const ping = defineTool({
    name: "ping",
    description: "Ping",
    run: () => {
      log.pings += 1;
      return "pong";
    },
  });
  const refund = requireApproval(
    defineTool({
      name: "refund",
      description: "Refund",
      run: () => {
        log.refunds += 1;
        return "refunded";
      },
    }),
    { prompt: "Refund?" },
  );
  const worker = defineAgent({
    name: "worker",
    description: "Works",
    systemPrompt: "w",
    tools: [ping, refund],
    ...(opts.worker ? { budget: opts.worker } : {}),
    demoModel: async (request) => {
      await opts.onWorkerCall?.();
      const prompt = String(request.messages.find((m) => m.role === "user")?.content);
      const done = toolResults(request).length;
      if (prompt === "refund") {
        return done === 0
          ? { toolCalls: [{ name: "refund", arguments: {} }], usage: tokens(30) }
          : { content: "refund done", usage: tokens(30) };
      }
      return done < (opts.pings ?? 3)
        ? { toolCalls: [{ name: "ping", arguments: {} }], usage: tokens(30) }
        : { content: `worked ${done}`, usage: tokens(30) };
    },
  });
  const coordinator = defineAgent({
    name: "coordinator",
    description: "Delegates",
    systemPrompt: "c",
    tools: [],
    team: ["worker"],
    ...(opts.coordinator ? { budget: opts.coordinator } : {}),
    demoModel: (request) => {
      log.coordinatorCalls += 1;
      const last = request.messages.at(-1);
      if (last?.role === "user") {
        const prompt = last.content === "refund" ? "refund" : "work";
        const calls = Array.from({ length: opts.tasks ?? 1 }, () => ({
          name: "task",
          arguments: { agent: "worker", prompt },
        }));
        return { toolCalls: calls, usage: tokens(10) };
      }
      return {
        content: toolResults(request)
          .map((m) => m.content)
          .join(" | "),
        usage: tokens(10),
      };
    },
  });
  return { edge: createEdge({ agents: [coordinator, worker] }), log };
}

async function inObject<R>(
  edge: ReturnType<typeof createEdge>,
  input: string,
  fn: (object: Object_, runId: string, state: DurableObjectState) => Promise<R>,
): Promise<R> {
  const threadId = newThreadId();
  const runId = newRunId(threadId);
  const queue = { send: async () => {}, sendBatch: async () => {} };
  return runInDurableObject(threadStub(threadId), async (_instance, state) => {
    const object = new edge.ThreadObject(state, {
      ...env,
      RESUME_QUEUE: queue,
      NOTIFY_QUEUE: queue,
    });
    await object.start({ runId, threadId, agent: "coordinator", input, publicUrl: BASE });
    await object.drive(runId);
    const result = await fn(object, runId, state);
    await state.storage.deleteAlarm();
    return result;
  });
}

const viewOf = async (object: Object_, runId: string) =>
  (await object.getRun(runId, { transcript: true })) as RunView & { tree: TreeView };
const taskOutputs = (view: RunView) =>
  (view.transcript ?? []).filter((m) => m.role === "tool").map((m) => m.content);

describe("hierarchical budgets of a tree in the Durable Object", () => {
  it("maxTokens: a child's carve stops it, and what it spent stops its queued sibling and its parent", async () => {
    // The coordinator's 10 tokens + worker.1's 3 × 30 spend its 100: worker.2 (carved 90 at
    // spawn, before worker.1 spent anything) is stopped by the live walk, unrun.
    const { edge, log } = rig({ coordinator: { maxTokens: 100, maxConcurrent: 1 }, tasks: 2 });
    const view = await inObject(edge, "work", (object, runId) => viewOf(object, runId));
    expect(view).toMatchObject({ status: "incomplete", limit: "maxTokens" });
    expect(log.coordinatorCalls).toBe(1);
    expect(taskOutputs(view)).toEqual([
      "incomplete (budget exhausted: maxTokens of root/coordinator.1/worker.1 (90 of 90)): ",
      "incomplete (budget exhausted: maxTokens of root/coordinator.1 (100 of 100)): ",
    ]);
    expect(view.tree.map((h) => [h.handle, h.state, h.turns])).toEqual([
      ["root/coordinator.1", "closed", 1],
      ["root/coordinator.1/worker.1", "closed", 3],
      ["root/coordinator.1/worker.2", "closed", 0],
    ]);
    expect(log.pings).toBe(3);
  });

  it("maxToolCalls of the child: the child stops, its parent carries on with the limit named", async () => {
    const { edge, log } = rig({ worker: { maxToolCalls: 2 } });
    const view = await inObject(edge, "work", (object, runId) => viewOf(object, runId));
    expect(view.status).toBe("done");
    expect(view.text).toBe(
      "incomplete (budget exhausted: maxToolCalls of root/coordinator.1/worker.1 (2 of 2)): ",
    );
    expect(log.pings).toBe(2);
  });

  it("maxToolCalls of the parent counts its children's calls (the roll-up)", async () => {
    const { edge } = rig({ coordinator: { maxToolCalls: 3 }, pings: 1, tasks: 2 });
    const view = await inObject(edge, "work", (object, runId) => viewOf(object, runId));
    // worker.1: 1 ping; worker.2: 1 ping; the coordinator's own 2 task calls: 4 ≥ 3.
    expect(view).toMatchObject({ status: "incomplete", limit: "maxToolCalls" });
    expect(taskOutputs(view)).toEqual(["worked 1", "worked 1"]);
  });

  it("maxWallMs: a child's approval decided an hour later finds the tree's time spent", async () => {
    // The child's carve (the coordinator's minute, less what had passed at spawn) runs out
    // first; the coordinator's own minute stops the coordinator.
    const { edge, log } = rig({ coordinator: { maxWallMs: 60_000 } });
    const { pendingView, done } = await inObject(edge, "refund", async (object, runId, state) => {
      const pendingView = await viewOf(object, runId);
      // An hour passes: every clock reading of the tree is an hour older.
      state.storage.sql.exec("UPDATE runs SET created_at = created_at - 3600000");
      state.storage.sql.exec("UPDATE agent_handles SET created_at = created_at - 3600000");
      const decided = await object.decide({
        runId,
        requestId: pendingView.pending!.id,
        decision: "approve",
        channel: "webhook",
      });
      expect(decided.ok).toBe(true);
      await object.drive(runId);
      return { pendingView, done: await viewOf(object, runId) };
    });
    expect(pendingView.status).toBe("pending");
    expect(pendingView.pending?.data?.path).toBe("root/coordinator.1/worker.1");
    expect(done).toMatchObject({ status: "incomplete", limit: "maxWallMs" });
    expect(taskOutputs(done)).toEqual([
      expect.stringMatching(
        /^incomplete \(budget exhausted: maxWallMs of root\/coordinator\.1\/worker\.1 \(36\d{5} of \d+\)\): $/,
      ),
    ]);
    expect(log.refunds).toBe(0); // stopped before its step: the approved call never ran
    expect(done.tree.map((h) => h.state)).toEqual(["closed", "closed"]);
  });

  it("maxConcurrent: at most that many children of a parent run at once, queued in call order", async () => {
    const peakWith = async (coordinator: Budget | undefined) => {
      let active = 0;
      let peak = 0;
      const { edge } = rig({
        ...(coordinator ? { coordinator } : {}),
        pings: 0,
        tasks: 3,
        // Each child's only model call waits for a sibling to join it (a bounded wait).
        onWorkerCall: async () => {
          active += 1;
          peak = Math.max(peak, active);
          for (let i = 0; i < 50 && active < 2; i += 1) {
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
          active -= 1;
        },
      });
      const view = await inObject(edge, "work", (object, runId) => viewOf(object, runId));
      expect(view.status).toBe("done");
      expect(taskOutputs(view)).toEqual(["worked 0", "worked 0", "worked 0"]);
      return peak;
    };
    expect(await peakWith(undefined)).toBeGreaterThan(1); // the children do overlap without it
    expect(await peakWith({ maxConcurrent: 1 })).toBe(1);
  });
});
