/**
 * MCP tasks (protocol 2025-11-25, the SDK's experimental `TaskStore`) over runs: a
 * `tools/call` of an agent with `params.task` starts the run and returns at once with a task
 * whose id is the run id; `tasks/get` reads the run, `tasks/result` waits (polling the run
 * every POLL_MS) until it is terminal and gives the same result a plain call would,
 * `tasks/cancel` cancels the run — only for the identity that started it, as A2A's
 * `tasks/cancel` (issue 37). Nothing lives in the session: the store reads the threads,
 * so a task outlives the session object. A waiting run is `input_required` with the pending
 * text (who decides, the approval link) as its status message; in task mode a request is not
 * elicited (decide it by the link, the inbox or Slack; `tasks/result` returns once it is done).
 * A `remote_task` wait reads `working`.
 */
import type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type Result,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { isRemoteTaskRequest } from "../../../core/a2a/remote-task";
import type { RunView } from "../../protocol";
import { threadOf, threadStub } from "../../http/threads";
import { sameCaller } from "../caller";
import { type CallDeps, failureText, finishedResult, pendingText } from "./call-agent";
import { unpack } from "../../packed";

/** How often `tasks/result` re-reads a run that is not finished (the SDK's wait loop). */
export const TASK_POLL_MS = 1000;

function statusOf(view: RunView): Task["status"] {
  switch (view.status) {
    case "running":
      return "working";
    case "pending":
      return isRemoteTaskRequest(view.pending) ? "working" : "input_required";
    case "done":
      return "completed";
    case "cancelled":
      return "cancelled";
    default:
      return "failed";
  }
}

async function viewOf(deps: CallDeps, taskId: string): Promise<RunView | undefined> {
  const threadId = threadOf(taskId);
  return threadId ? unpack(await threadStub(deps.env, threadId).getRun(taskId)) : undefined;
}

export async function taskOf(deps: CallDeps, view: RunView): Promise<Task> {
  const status = statusOf(view);
  const message =
    status === "input_required" && view.pending
      ? await pendingText(deps, view, view.pending)
      : status === "failed"
        ? (failureText(view) ?? "the run failed")
        : undefined;
  return {
    taskId: view.runId,
    status,
    ttl: null,
    createdAt: view.createdAt,
    lastUpdatedAt: view.updatedAt,
    pollInterval: TASK_POLL_MS,
    ...(message ? { statusMessage: message } : {}),
  };
}

/**
 * `tasks/cancel` for the caller in `deps`: the SDK's own handler asks the store, which never
 * learns who calls, so the session's server answers it here. A task started by another
 * identity (anonymous included) is refused and keeps running.
 */
export async function cancelTask(deps: CallDeps, taskId: string): Promise<Task> {
  const view = await viewOf(deps, taskId);
  if (!view) {
    throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
  }
  if (!sameCaller(view.requestedBy, deps.caller)) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `task ${taskId} was started by another identity; only its requester may cancel it`,
    );
  }
  const threadId = threadOf(taskId) as string;
  const outcome = await threadStub(deps.env, threadId).cancel(taskId);
  if (!outcome.ok) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Cannot cancel task in terminal status: ${statusOf(view)}`,
    );
  }
  return taskOf(deps, outcome.run);
}

/** The store the session's server consults; `deps` are the session's (env, base, caller). */
export function runTaskStore(deps: () => CallDeps): TaskStore {
  return {
    async createTask() {
      // Tasks are created by the tools/call handler (the run is the task), never here.
      throw new Error("tasks are runs: they are created by tools/call with params.task");
    },
    async getTask(taskId) {
      const view = await viewOf(deps(), taskId);
      return view ? taskOf(deps(), view) : null;
    },
    async storeTaskResult() {
      // The result is the run's own, read by getTaskResult.
    },
    async getTaskResult(taskId): Promise<Result> {
      const view = await viewOf(deps(), taskId);
      if (!view) {
        throw new Error(`no run ${taskId}`);
      }
      const result: CallToolResult = {
        ...finishedResult(view),
        structuredContent: {
          runId: view.runId,
          threadId: view.threadId,
          status: view.status,
          text: view.text,
        },
      };
      return result;
    },
    async updateTaskStatus(taskId, status) {
      if (status === "cancelled") {
        const threadId = threadOf(taskId);
        if (threadId) {
          await threadStub(deps().env, threadId).cancel(taskId);
        }
      }
    },
    async listTasks() {
      // Runs are listed per thread elsewhere (GET /v1/runs/:id); MCP's list is not offered.
      return { tasks: [] };
    },
  };
}
