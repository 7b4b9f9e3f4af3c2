/**
 * The MCP tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) on the client side. The
 * client declares it, so a server may answer a `tools/call` with a task instead of a result;
 * the call then follows the task:
 *
 * - `working`: polled with `tasks/get`, the interval doubling from the server's
 *   `pollIntervalMs` up to MAX_POLL_EVERY_MS. Where the host waits durably
 *   (`ctx.suspendAfterMs`, the edge) the call suspends after that window on a `remote_task`
 *   request, as an A2A call does (../../a2a/remote-task.ts): the thread object's alarm polls the
 *   task with the tool's poller and answers the request when the task settles, so no isolate
 *   waits. In process (no `suspendAfterMs`) the call polls inline, with the same backoff.
 * - `input_required`: its input requests become our requests (./input-required, the round's
 *   state keeps the task's id) and the answers go back with `tasks/update`.
 * - `completed`: the task's result is the call's; `failed`/`cancelled` an error result.
 *
 * The wait is bounded by the task's `ttlMs` (else the call's timeout); past it, or when the
 * call is aborted (the run cancelled), the task is sent `tasks/cancel`.
 */
import type { Context, ToolResult } from "../../types";
import { pending } from "../../answers";
import { errorMessage } from "../../errors";
import { CONTINUES } from "../../suspension";
import { REMOTE_TASK_KIND, type RemoteTaskData } from "../../a2a/remote-task";
import type { RemoteState, RemoteTask } from "../../a2a/wire";
import type { McpClient } from "../client";
import { NO_SDK_TIMEOUT } from "../deadline";
import { type Origin, suspendOnInput } from "./input-required";
import { type McpTaskState, taskStateOf } from "./task-wire";

export { TASKS_EXTENSION, type CreatedTask, createdTaskOf, taskStateOf } from "./task-wire";
export type { McpTaskState } from "./task-wire";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Where a `remote_task` request of an MCP task keeps what the re-executed call needs. */
export const MCP_TASK_DATA = "mcpTask";
/** The longest interval between two polls of a task. */
export const MAX_POLL_EVERY_MS = 30_000;
const FIRST_POLL_MS = 1000;
const MIN_POLL_MS = 10;

const STATES: Record<string, RemoteState> = {
  working: "working",
  input_required: "input-required",
  completed: "completed",
  failed: "failed",
  cancelled: "canceled",
};

/** The task in the shape the host's durable wait reads (its own fields in `detail`). */
export function remoteTaskOf(task: McpTaskState): RemoteTask {
  return {
    id: task.taskId,
    state: STATES[task.status] ?? "unknown",
    statusText: task.statusMessage ?? "",
    output: "",
    detail: task as unknown as Record<string, unknown>,
  };
}

/** What following a task needs; `started` and `limit` survive a durable wait in its request. */
export interface TaskFollow {
  client: McpClient;
  ctx: Context;
  origin: Origin;
  /** Epoch ms the call first sent the task, and how long it may wait for it. */
  started: number;
  limit: number;
  /** Rounds of input asked so far in this call. */
  round: number;
  /** This execution took an answer: a suspension is the call's next step. */
  continues: boolean;
  /**
   * The input keys just sent with `tasks/update`: a task that still asks exactly those (it
   * has not taken the answers in yet) is polled again rather than asked again.
   */
  justAnswered?: string[];
}

/** The wait's bound: the task's TTL when it has one, else the call's timeout. */
export const taskLimit = (task: McpTaskState, timeout: number): number =>
  typeof task.ttlMs === "number" && task.ttlMs > 0 ? task.ttlMs : timeout;

/** Sends one request of the extension with the run's trace context. */
export function taskRequest(
  follow: Pick<TaskFollow, "client" | "ctx">,
  method: "tasks/get" | "tasks/update" | "tasks/cancel",
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  return follow.client.taskRequest(
    method,
    { params, ...(follow.ctx.traceparent ? { traceparent: follow.ctx.traceparent } : {}) },
    { timeout: NO_SDK_TIMEOUT, ...(follow.ctx.signal ? { signal: follow.ctx.signal } : {}) },
  );
}

/** Tells the server the task is no longer wanted; never throws (the call ends either way). */
export async function cancelTask(follow: Pick<TaskFollow, "client" | "ctx">, taskId: string) {
  await follow.client
    .taskRequest("tasks/cancel", {
      params: { taskId },
      ...(follow.ctx.traceparent ? { traceparent: follow.ctx.traceparent } : {}),
    })
    .catch(() => {});
}

/** Follows the task until it settles, asks for input, or the call waits for it durably. */
export async function followTask(first: McpTaskState, follow: TaskFollow): Promise<ToolResult> {
  const { ctx, origin } = follow;
  let task = first;
  let wait = Math.max(MIN_POLL_MS, task.pollIntervalMs ?? FIRST_POLL_MS);
  let answered = follow.justAnswered ?? [];
  for (;;) {
    const stale =
      task.status === "input_required" &&
      Object.keys(task.inputRequests ?? {}).every((key) => answered.includes(key));
    const settled = stale ? undefined : settledResult(task, follow);
    if (settled) {
      return settled;
    }
    if (ctx.signal?.aborted) {
      await cancelTask(follow, task.taskId);
      return { output: `${origin.tool} aborted (task ${task.taskId} cancelled)`, isError: true };
    }
    const elapsed = Date.now() - follow.started;
    if (elapsed >= follow.limit) {
      await cancelTask(follow, task.taskId);
      return {
        output: `${origin.tool}: task ${task.taskId} still ${task.status} after ${follow.limit} ms; it was cancelled`,
        isError: true,
      };
    }
    if (ctx.suspendAfterMs !== undefined && elapsed >= ctx.suspendAfterMs) {
      return waitDurably(task, { ...follow, wait });
    }
    await sleep(Math.min(wait, follow.limit - elapsed), ctx.signal);
    wait = Math.min(wait * 2, MAX_POLL_EVERY_MS);
    if (ctx.signal?.aborted) {
      continue;
    }
    try {
      const next = taskStateOf(await taskRequest(follow, "tasks/get", { taskId: task.taskId }));
      if (!next) {
        return { output: `${origin.tool}: tasks/get answered without a task`, isError: true };
      }
      task = next;
      answered = [];
    } catch (error) {
      return { output: `${origin.tool}: tasks/get failed: ${errorMessage(error)}`, isError: true };
    }
  }
}

/** The call's result for a task that completed, failed or was cancelled; its questions for one that asks. */
function settledResult(task: McpTaskState, follow: TaskFollow): ToolResult | undefined {
  const tool = follow.origin.tool;
  switch (task.status) {
    case "completed":
      return isRecord(task.result)
        ? { output: "", isError: false, metadata: { [MCP_TASK_RESULT]: task.result } }
        : { output: `${tool}: task ${task.taskId} completed without a result`, isError: true };
    case "failed":
    case "cancelled":
      return {
        output: `${tool}: task ${task.taskId} ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
        isError: true,
      };
    case "input_required":
      return suspendOnInput(
        { resultType: "input_required", inputRequests: task.inputRequests ?? {} },
        {
          origin: follow.origin,
          round: follow.round + 1,
          continues: follow.continues,
          task: { taskId: task.taskId, started: follow.started, limit: follow.limit },
        },
      );
    default:
      return undefined;
  }
}

/** Set on a settled result: the completed task's `CallToolResult`, for the caller to map. */
export const MCP_TASK_RESULT = "mcpTaskResult";

/** What a `remote_task` request of an MCP task carries besides the A2A fields. */
export interface McpTaskWait {
  server: string;
  round: number;
  limit: number;
}

function waitDurably(task: McpTaskState, follow: TaskFollow & { wait: number }): ToolResult {
  const data: RemoteTaskData & { maxPollEvery: number; [MCP_TASK_DATA]: McpTaskWait } = {
    agent: `mcp:${follow.origin.server}`,
    tool: follow.origin.tool,
    taskId: task.taskId,
    state: STATES[task.status] ?? "unknown",
    pollEvery: follow.wait,
    maxPollEvery: MAX_POLL_EVERY_MS,
    deadline: follow.started + follow.limit,
    startedAt: follow.started,
    [MCP_TASK_DATA]: { server: follow.origin.server, round: follow.round, limit: follow.limit },
  };
  const result = pending({
    kind: REMOTE_TASK_KIND,
    prompt: `Waiting for ${follow.origin.server} task ${task.taskId} (${task.status})`,
    data: data as unknown as Record<string, unknown>,
    // A backstop only: the host answers with a timeout at the deadline.
    expiresAt: new Date(follow.started + follow.limit + 60_000),
  });
  return follow.continues
    ? { ...result, metadata: { ...result.metadata, [CONTINUES]: true } }
    : result;
}

/** The MCP task wait a re-execution answers, when `ctx.answered` is one of this server's. */
export function answeredTaskWait(
  ctx: Context,
  server: string,
): { wait: McpTaskWait; data: RemoteTaskData } | undefined {
  const request = ctx.answered;
  const data = request?.data;
  const wait = isRecord(data) ? data[MCP_TASK_DATA] : undefined;
  if (request?.kind !== REMOTE_TASK_KIND || !isRecord(wait) || wait.server !== server) {
    return undefined;
  }
  return { wait: wait as unknown as McpTaskWait, data: data as unknown as RemoteTaskData };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
