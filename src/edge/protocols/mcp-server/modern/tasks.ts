/**
 * The MCP tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) over runs: a task's id
 * is its run id, so a task lives exactly as long as the run (nothing is stored for it) and
 * outlives any session. `tasks/get` reads the run: `working` while it works or waits for its
 * approvers (the status message says who decides and links the approval page),
 * `input_required` with the open request as an input request when the caller may answer it,
 * `completed` with the call's result once it ends (a failed run is a result with `isError`, as
 * the extension has it), `cancelled`. A task's TTL is its waiting request's: when the request
 * expires, so does the run, and the task reads as its end. Only the run's caller sees a task.
 */
import type { RunView } from "../../../protocol";
import { threadOf, threadStub } from "../../../http/threads";
import { isRemoteTaskRequest } from "../../../../core/a2a/remote-task";
import { sameCaller } from "../../caller";
import { type CallDeps, finishedResult, pendingText } from "../call-agent";
import { applyInputResponses, inputRequestFor } from "./input-requests";
import {
  acceptsTasks,
  INVALID_PARAMS,
  MISSING_CLIENT_CAPABILITY,
  type ModernContext,
  RpcError,
  TASKS_EXTENSION,
} from "./wire";
import { unpack } from "../../../packed";

/** How often a host should poll `tasks/get`. */
export const TASK_POLL_INTERVAL_MS = 2000;

/** What `pendingText` needs of a call's deps (it links the approval page). */
export const linkDeps = (ctx: ModernContext): CallDeps => ({
  env: ctx.env,
  approverGroups: ctx.approverGroups,
  base: ctx.base,
  caller: ctx.caller,
  signal: ctx.signal,
  elicitation: { form: false, url: false },
  elicit: () => Promise.reject(new Error("2026-07-28 never elicits on a session")),
});

/** The call's result for a run that ended, as a plain call returns it. */
export function runResult(view: RunView): Record<string, unknown> {
  return {
    ...finishedResult(view),
    structuredContent: {
      runId: view.runId,
      threadId: view.threadId,
      status: view.status,
      text: view.text,
    },
  };
}

/** The task's fields every status shares. */
function taskBase(view: RunView) {
  const expires = view.expiresAt ? Date.parse(view.expiresAt) : Number.NaN;
  return {
    taskId: view.runId,
    createdAt: view.createdAt,
    lastUpdatedAt: view.updatedAt,
    ttlMs: Number.isFinite(expires) ? Math.max(0, expires - Date.parse(view.createdAt)) : null,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
}

/** The task as `tasks/get` returns it (a `DetailedTask`, without `resultType`). */
export async function detailedTask(
  ctx: ModernContext,
  view: RunView,
): Promise<Record<string, unknown>> {
  const base = taskBase(view);
  switch (view.status) {
    case "running":
      return { ...base, status: "working" };
    case "pending": {
      const request = view.pending;
      if (!request || isRemoteTaskRequest(request)) {
        return { ...base, status: "working" };
      }
      const input = inputRequestFor(ctx, request);
      if (input) {
        return {
          ...base,
          status: "input_required",
          statusMessage: request.prompt,
          inputRequests: { [request.id]: input },
        };
      }
      return {
        ...base,
        status: "working",
        statusMessage: await pendingText(linkDeps(ctx), view, request),
      };
    }
    case "cancelled":
      return { ...base, status: "cancelled", statusMessage: `Run ${view.runId} was cancelled` };
    default:
      return { ...base, status: "completed", result: runResult(view) };
  }
}

/** A `CreateTaskResult`: the seed state only (never a result or input requests). */
export async function createTaskResult(
  ctx: ModernContext,
  view: RunView,
): Promise<Record<string, unknown>> {
  const { result: _result, inputRequests: _inputs, ...task } = await detailedTask(ctx, view);
  return { resultType: "task", ...task };
}

/** The run behind `taskId`, if the caller may see it; otherwise the extension's not-found error. */
async function taskRun(ctx: ModernContext, params: Record<string, unknown>) {
  if (!acceptsTasks(ctx.capabilities)) {
    throw new RpcError(MISSING_CLIENT_CAPABILITY, "Missing required client capability", {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
  }
  const taskId = params.taskId;
  if (typeof taskId !== "string" || !taskId) {
    throw new RpcError(INVALID_PARAMS, "taskId must be a non-empty string");
  }
  const threadId = threadOf(taskId);
  const stub = threadId ? threadStub(ctx.env, threadId) : undefined;
  const view = stub ? await unpack(await stub.getRun(taskId)) : undefined;
  if (!stub || !view || !sameCaller(view.requestedBy, ctx.caller)) {
    throw new RpcError(INVALID_PARAMS, "Failed to retrieve task: Task not found");
  }
  return { stub, view };
}

export async function getTask(
  ctx: ModernContext,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { view } = await taskRun(ctx, params);
  return { resultType: "complete", ...(await detailedTask(ctx, view)) };
}

/** `tasks/update`: answers the task's open request; responses for anything else are ignored. */
export async function updateTask(
  ctx: ModernContext,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { stub, view } = await taskRun(ctx, params);
  const open = view.status === "pending" && view.pending ? [view.pending.id] : [];
  await applyInputResponses(ctx, { stub, view }, { asked: open, responses: params.inputResponses });
  return { resultType: "complete" };
}

/** `tasks/cancel`: cancels the run (cooperative: a run that already ended keeps its end). */
export async function cancelTask(
  ctx: ModernContext,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { stub, view } = await taskRun(ctx, params);
  if (view.status === "running" || view.status === "pending") {
    await stub.cancel(view.runId);
  }
  return { resultType: "complete" };
}
