/** The `get_run` tool under 2026-07-28: a run's state and, once it ended, its answer. */
import { threadOf, threadStub } from "../../../http/threads";
import { finishedResult, pendingText } from "../call-agent";
import { linkDeps } from "./tasks";
import { INVALID_PARAMS, type ModernContext, RpcError } from "./wire";
import { unpack } from "../../../packed";

export async function getRunModern(
  ctx: ModernContext,
  runId: unknown,
): Promise<Record<string, unknown>> {
  if (typeof runId !== "string" || !runId) {
    throw new RpcError(INVALID_PARAMS, "runId must be a non-empty string");
  }
  const threadId = threadOf(runId);
  const view = threadId
    ? await unpack(await threadStub(ctx.env, threadId).getRun(runId))
    : undefined;
  if (!view) {
    throw new RpcError(INVALID_PARAMS, `no run ${runId}`);
  }
  const structuredContent = {
    runId: view.runId,
    threadId: view.threadId,
    status: view.status,
    text: view.text,
    pending: view.pending,
  };
  if (view.status === "running") {
    return { content: [{ type: "text", text: `Run ${runId} is running` }], structuredContent };
  }
  if (view.status === "pending" && view.pending) {
    const text = await pendingText(linkDeps(ctx), view, view.pending);
    return { content: [{ type: "text", text }], structuredContent };
  }
  return { ...finishedResult(view), structuredContent };
}
