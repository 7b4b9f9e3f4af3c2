/**
 * The parts of an MCP tool call that deal with a task (./tasks) outside the call's first send:
 * the host's poller and canceller on each tool, the re-execution after the host's durable wait
 * settled, and the answers to a task's questions (`tasks/update`).
 */
import type { Context, Tool, ToolResult } from "../../types";
import { errorMessage } from "../../errors";
import { attachCanceller, attachPoller } from "../../a2a/remote-task";
import type { McpClient } from "../client";
import { NO_SDK_TIMEOUT } from "../deadline";
import type { Retry } from "./input-required";
import {
  type answeredTaskWait,
  cancelTask,
  followTask,
  remoteTaskOf,
  taskRequest,
  taskStateOf,
} from "./tasks";

/** Gives `tool` the poller and canceller a host's durable wait on its tasks uses. */
export function withTaskHost(tool: Tool, client: McpClient): Tool {
  attachCanceller(tool, async (taskId) => {
    await client.taskRequest("tasks/cancel", { params: { taskId } });
  });
  return attachPoller(tool, async (taskId, signal) => {
    const raw = await client.taskRequest(
      "tasks/get",
      { params: { taskId } },
      { timeout: NO_SDK_TIMEOUT, ...(signal ? { signal } : {}) },
    );
    const task = taskStateOf(raw);
    if (!task) {
      throw new Error(`tasks/get answered without a task for ${taskId}`);
    }
    return remoteTaskOf(task);
  });
}

type Follow = { client: McpClient; ctx: Context; origin: { server: string; tool: string } };

/** The durable wait (a `remote_task` request) ended: the task as last polled, or a timeout. */
export async function resumeTaskWait(
  { wait, data }: NonNullable<ReturnType<typeof answeredTaskWait>>,
  follow: Follow,
): Promise<ToolResult> {
  const outcome = follow.ctx.answer?.data as
    | { timedOut?: boolean; task?: { detail?: unknown } }
    | undefined;
  const task = taskStateOf(outcome?.task?.detail);
  if (!follow.ctx.answer?.ok || outcome?.timedOut || !task) {
    await cancelTask(follow, data.taskId);
    return {
      output: `${follow.origin.tool}: task ${data.taskId} ${outcome?.timedOut ? `timed out after ${wait.limit} ms` : "was not waited for to its end"}; it was cancelled`,
      isError: true,
    };
  }
  return followTask(task, {
    ...follow,
    started: data.startedAt,
    limit: wait.limit,
    round: wait.round,
    continues: true,
  });
}

/** A task's questions are answered: `tasks/update` sends them, then the call follows the task again. */
export async function answerTask(retry: Retry, follow: Follow): Promise<ToolResult> {
  const ref = retry.task as NonNullable<Retry["task"]>;
  try {
    await taskRequest(follow, "tasks/update", {
      taskId: ref.taskId,
      inputResponses: retry.inputResponses,
    });
    const task = taskStateOf(await taskRequest(follow, "tasks/get", { taskId: ref.taskId }));
    if (!task) {
      return { output: `${follow.origin.tool}: tasks/get answered without a task`, isError: true };
    }
    return await followTask(task, {
      ...follow,
      started: ref.started,
      limit: ref.limit,
      round: retry.round,
      continues: true,
      justAnswered: Object.keys(retry.inputResponses),
    });
  } catch (error) {
    return {
      output: `${follow.origin.tool}: answering task ${ref.taskId} failed: ${errorMessage(error)}`,
      isError: true,
    };
  }
}
