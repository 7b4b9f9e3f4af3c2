/**
 * A scripted tree for edge tests of issue 24: a `coordinator` whose team is `worker`, run in a
 * thread's Durable Object (no queue: the test drives). The coordinator hands out one `task` per
 * prompt in one turn, then answers with its task results joined by " | ". A worker asked to
 * "refund …" calls `refund` (which needs approval) and reports; any other worker pings
 * `pings` times. `log` counts the model calls and tool executions.
 */
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
import { BASE } from "./edge";
import { threadStub } from "./durable";

export type TreeObject = InstanceType<ReturnType<typeof createEdge>["ThreadObject"]>;
export type TreeView = Array<{ handle: string; state: string; turns: number }>;

const tokens = (n: number) => ({ promptTokens: n, completionTokens: 0, totalTokens: n });
const toolResults = (request: ModelRequest) =>
  request.messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");

export function treeRig(opts: {
  coordinator?: Budget;
  worker?: Budget;
  /** How many `task` calls the coordinator makes ("refund" if its input is, else "work"), or their prompts. */
  tasks?: number | string[];
  /** Tool results the worker wants before it answers. */
  pings?: number;
  onWorkerCall?: () => Promise<void>;
  /** Each agent's `maxToolOutputBytes` (default: the edge's). */
  maxToolOutputBytes?: { coordinator?: number; worker?: number };
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
  const refund = requireApproval<{ prompt?: string }>(
    defineTool<{ prompt?: string }>({
      name: "refund",
      description: "Refund",
      run: () => {
        log.refunds += 1;
        return "refunded";
      },
    }),
    { prompt: (args) => `${args.prompt ?? "refund"}?` },
  );
  const worker = defineAgent({
    name: "worker",
    description: "Works",
    systemPrompt: "w",
    tools: [ping, refund],
    ...(opts.worker ? { budget: opts.worker } : {}),
    ...(opts.maxToolOutputBytes?.worker
      ? { maxToolOutputBytes: opts.maxToolOutputBytes.worker }
      : {}),
    demoModel: async (request) => {
      await opts.onWorkerCall?.();
      const prompt = String(request.messages.find((m) => m.role === "user")?.content);
      const done = toolResults(request).length;
      if (prompt.startsWith("refund")) {
        return done === 0
          ? { toolCalls: [{ name: "refund", arguments: { prompt } }], usage: tokens(30) }
          : { content: `${prompt}: done`, usage: tokens(30) };
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
    ...(opts.maxToolOutputBytes?.coordinator
      ? { maxToolOutputBytes: opts.maxToolOutputBytes.coordinator }
      : {}),
    demoModel: (request) => {
      log.coordinatorCalls += 1;
      const last = request.messages.at(-1);
      if (last?.role === "user") {
        const prompts = Array.isArray(opts.tasks)
          ? opts.tasks
          : Array.from({ length: opts.tasks ?? 1 }, () =>
              last.content === "refund" ? "refund" : "work",
            );
        const calls = prompts.map((prompt) => ({
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

/** `start.beforeDrive` sees the object after the start, before the drive (to watch it mid-drive). */
export async function inTreeObject<R>(
  edge: ReturnType<typeof createEdge>,
  start: string | { input: string; beforeDrive: (object: TreeObject, runId: string) => void },
  fn: (object: TreeObject, runId: string, state: DurableObjectState) => Promise<R>,
): Promise<R> {
  const input = typeof start === "string" ? start : start.input;
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
    if (typeof start !== "string") {
      start.beforeDrive(object, runId);
    }
    await object.drive(runId);
    const result = await fn(object, runId, state);
    await state.storage.deleteAlarm();
    return result;
  });
}

export const viewOf = async (object: TreeObject, runId: string) =>
  (await object.getRun(runId, { transcript: true })) as RunView & { tree: TreeView };
export const taskOutputs = (view: RunView) =>
  (view.transcript ?? []).filter((m) => m.role === "tool").map((m) => m.content);

/** The run's events of one type, read inside the object (`data` parsed). */
export function eventsIn(state: DurableObjectState, runId: string, type: string) {
  return state.storage.sql
    .exec("SELECT data FROM events WHERE run_id = ? AND type = ? ORDER BY id", runId, type)
    .toArray()
    .map((row) => JSON.parse(String(row.data)) as Record<string, unknown>);
}
