/**
 * `tools/call` of an agent under MCP 2026-07-28. The server never sends the host a request of
 * its own in this revision; instead, when the run waits on a request the caller may answer
 * (an `input`, a sign-in URL), the call returns `input_required` with that request as an input
 * request and a signed `requestState` naming the thread, the run and the request. The host
 * calls again with the same arguments, the `inputResponses` and that state: the answer goes
 * through the ledger (channel `mcp`) and the same run goes on — a retry never starts a run, and
 * a state that does not verify is a JSON-RPC error before anything is read or written. A run
 * that waits on its approvers, or still works when the call's bound runs out, returns a task
 * (tasks extension) to a host that declared it, and otherwise `input_required` with only a
 * `requestState` ("call again later"), so no call hangs.
 */
import { readConfig } from "../../../settings";
import { threadStub } from "../../../http/threads";
import type { RunView, ThreadRpc } from "../../../protocol";
import type { AgentDefinition } from "../../../agent";
import { settledView } from "../../run-watch";
import { sameCaller } from "../../caller";
import { PENDING_BOUND_MS, startCall } from "../call-agent";
import { applyInputResponses, inputRequestFor } from "./input-requests";
import { signRequestState, verifyRequestState } from "./request-state";
import { createTaskResult, linkDeps, runResult } from "./tasks";
import { acceptsTasks, INVALID_PARAMS, type ModernContext, RpcError } from "./wire";
import { unpack } from "../../../packed";

export interface AgentCall {
  prompt: string;
  threadId?: string;
  requestState?: unknown;
  inputResponses?: unknown;
}

const secretsOf = (ctx: ModernContext) => readConfig(ctx.env).webhookSecrets;

export async function callAgentModern(
  ctx: ModernContext,
  agent: AgentDefinition,
  call: AgentCall,
): Promise<Record<string, unknown>> {
  if (call.requestState !== undefined) {
    return resumeCall(ctx, agent, call);
  }
  if (call.inputResponses !== undefined) {
    throw new RpcError(INVALID_PARAMS, "inputResponses without the requestState they answer");
  }
  const started = await startCall(linkDeps(ctx), agent, {
    prompt: call.prompt,
    ...(call.threadId ? { threadId: call.threadId } : {}),
  });
  if (!started.ok) {
    return { resultType: "complete", ...started.result };
  }
  return settle(ctx, { stub: threadStub(ctx.env, started.threadId), runId: started.runId });
}

/** A retry: the state names the run; the responses answer what it asked. */
async function resumeCall(
  ctx: ModernContext,
  agent: AgentDefinition,
  call: AgentCall,
): Promise<Record<string, unknown>> {
  const claims = await verifyRequestState(secretsOf(ctx), call.requestState);
  if (!claims || !sameCaller(claims.caller, ctx.caller)) {
    throw new RpcError(INVALID_PARAMS, "requestState was not issued by this server to this caller");
  }
  const stub = threadStub(ctx.env, claims.threadId);
  const view = await unpack(await stub.getRun(claims.runId));
  if (!view || view.threadId !== claims.threadId || view.agent !== agent.name) {
    throw new RpcError(INVALID_PARAMS, "requestState names no run of this tool");
  }
  const answered = await applyInputResponses(
    ctx,
    { stub, view },
    { asked: claims.requestIds, responses: call.inputResponses },
  );
  return settle(ctx, { stub, runId: claims.runId }, answered);
}

/** Follows the run until it ends or waits, within the bound, and shapes the call's result. */
async function settle(
  ctx: ModernContext,
  run: { stub: ThreadRpc; runId: string },
  answered?: string,
): Promise<Record<string, unknown>> {
  const view = await settledView(run, { boundMs: PENDING_BOUND_MS, signal: ctx.signal, answered });
  if (!view) {
    throw new RpcError(INVALID_PARAMS, `run ${run.runId} vanished`);
  }
  if (view.status === "running" || view.status === "pending") {
    return waiting(ctx, view);
  }
  return { resultType: "complete", ...runResult(view) };
}

async function waiting(ctx: ModernContext, view: RunView): Promise<Record<string, unknown>> {
  const request = view.status === "pending" ? view.pending : null;
  const input = request ? inputRequestFor(ctx, request) : undefined;
  if (request && input) {
    return {
      resultType: "input_required",
      inputRequests: { [request.id]: input },
      requestState: await stateFor(ctx, view, [request.id]),
    };
  }
  if (acceptsTasks(ctx.capabilities)) {
    return createTaskResult(ctx, view);
  }
  return { resultType: "input_required", requestState: await stateFor(ctx, view, []) };
}

const stateFor = (ctx: ModernContext, view: RunView, requestIds: string[]) =>
  signRequestState(secretsOf(ctx), {
    threadId: view.threadId,
    runId: view.runId,
    requestIds,
    ...(ctx.caller === undefined ? {} : { caller: ctx.caller }),
  });
