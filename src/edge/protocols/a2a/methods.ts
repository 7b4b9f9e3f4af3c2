/**
 * The A2A methods on runs: send (start a run, or answer the request of one), get, cancel, and
 * the push-notification config (push.ts). Each method throws `RpcError` with A2A's code and our
 * message; nothing is written for a refusal.
 */
import type { AgentDefinition } from "../../agent";
import type { ApproverGroupsInit } from "../../approvals/groups";
import type { EdgeEnv } from "../../settings";
import type { RunView, ThreadRpc } from "../../protocol";
import { threadOf, threadStub } from "../../http/threads";
import { answerRequest } from "../answer-request";
import { runForCaller, sameCaller } from "../caller";
import { settledView } from "../run-watch";
import { startAgentRun } from "../../http/start-run";
import { RPC, RpcError } from "./jsonrpc";
import { readAnswer, readBlocking, readMessage, readPushUrl, readTaskId } from "./params";
import { type A2ATask, toTask } from "./task";
import { unpack } from "../../packed";

export interface A2AContext {
  env: EdgeEnv;
  agents: AgentDefinition[];
  approverGroups: ApproverGroupsInit | undefined;
  caller: string | undefined;
  base: string;
  signal: AbortSignal;
}

/** How long a blocking `message/send` waits for the task to settle before returning it `working`. */
export const BLOCKING_WAIT_MS = 25_000;

/** A task the caller may see: its run, from the id alone (a made-up id never reaches storage). */
export async function taskRun(
  ctx: A2AContext,
  taskId: string,
): Promise<{ stub: ThreadRpc; view: RunView }> {
  const threadId = threadOf(taskId);
  const stub = threadId ? threadStub(ctx.env, threadId) : undefined;
  const view = stub ? await unpack(await stub.getRun(taskId)) : undefined;
  if (!stub || !view) {
    throw new RpcError(RPC.taskNotFound, `no task ${taskId}`);
  }
  return { stub, view: runForCaller(view, ctx.caller) };
}

function pickAgent(ctx: A2AContext, skill: string | undefined): AgentDefinition {
  const agent = skill === undefined ? ctx.agents[0] : ctx.agents.find((a) => a.name === skill);
  if (!agent) {
    const names = ctx.agents.map((a) => JSON.stringify(a.name)).join(", ");
    throw new RpcError(
      RPC.invalidParams,
      `no skill ${JSON.stringify(skill)}; the agent card lists ${names}`,
    );
  }
  return agent;
}

/** Starts a run for a message without a taskId; returns its id (the task id). */
async function startTask(ctx: A2AContext, params: Record<string, unknown>): Promise<string> {
  const message = readMessage(params);
  const agent = pickAgent(ctx, message.skill);
  if (!message.text.trim()) {
    throw new RpcError(
      RPC.invalidParams,
      "a message that starts a task needs a text part (the prompt)",
    );
  }
  const pushUrl = readPushUrl(params);
  const started = await startAgentRun(ctx.env, ctx.approverGroups, {
    agent,
    input: message.text,
    ...(message.contextId ? { threadId: message.contextId } : {}),
    ...(ctx.caller ? { requestedBy: ctx.caller } : {}),
    ...(pushUrl ? { callbackUrl: pushUrl } : {}),
    metadata: { a2a: true },
    publicUrl: ctx.base,
    // A contextId is the caller's conversation: another identity may not continue it.
    requesterOnly: true,
  });
  if (!started.ok) {
    throw new RpcError(
      started.code === "thread_busy" || started.code === "thread_forbidden"
        ? RPC.unsupportedOperation
        : RPC.invalidParams,
      started.code === "thread_busy"
        ? `context ${message.contextId} already has an active task: wait for it or use another contextId`
        : started.code === "thread_forbidden"
          ? `context ${message.contextId} belongs to another identity: use another contextId`
          : started.code === "invalid_callback_url"
            ? `pushNotificationConfig.url ${started.reason}`
            : started.message,
    );
  }
  return started.runId;
}

export interface Accepted {
  taskId: string;
  /** Set when the message answered a request: the task is not waiting on it any more. */
  answered?: string;
}

/** message/send and message/stream's first step: start a task or answer one. */
export async function acceptMessage(
  ctx: A2AContext,
  params: Record<string, unknown>,
): Promise<Accepted> {
  const message = readMessage(params);
  if (message.taskId === undefined) {
    return { taskId: await startTask(ctx, params) };
  }
  const { stub, view } = await taskRun(ctx, message.taskId);
  const answer = readAnswer(message);
  const outcome = await answerRequest({ stub, run: view }, answer, {
    caller: ctx.caller,
    channel: "a2a",
  });
  if (!outcome.ok) {
    throw new RpcError(
      outcome.code === "unknown_request" || outcome.code === "invalid"
        ? RPC.invalidParams
        : RPC.unsupportedOperation,
      outcome.message,
      { code: outcome.code },
    );
  }
  return { taskId: view.runId, answered: answer.requestId };
}

export async function sendMessage(
  ctx: A2AContext,
  params: Record<string, unknown>,
): Promise<A2ATask> {
  const { taskId, answered } = await acceptMessage(ctx, params);
  const { stub, view } = await taskRun(ctx, taskId);
  if (!readBlocking(params)) {
    return toTask(view, answered);
  }
  const settled = await settledView(
    { stub, runId: taskId },
    { boundMs: BLOCKING_WAIT_MS, signal: ctx.signal, answered },
  );
  return toTask(settled ? runForCaller(settled, ctx.caller) : view, answered);
}

export async function getTask(ctx: A2AContext, params: Record<string, unknown>): Promise<A2ATask> {
  return toTask((await taskRun(ctx, readTaskId(params))).view);
}

export async function cancelTask(
  ctx: A2AContext,
  params: Record<string, unknown>,
): Promise<A2ATask> {
  const { stub, view } = await taskRun(ctx, readTaskId(params));
  if (!sameCaller(view.requestedBy, ctx.caller)) {
    throw new RpcError(
      RPC.unsupportedOperation,
      `task ${view.runId} was started by another identity; only its requester may cancel it here`,
    );
  }
  const outcome = await stub.cancel(view.runId);
  if (!outcome.ok) {
    throw new RpcError(
      RPC.taskNotCancelable,
      `task ${view.runId} is ${view.status}: only a working or waiting task can be canceled`,
    );
  }
  return toTask(runForCaller(outcome.run, ctx.caller));
}
