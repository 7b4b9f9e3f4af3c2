/**
 * A2A inbound (SPEC §7B plus the waiting states): the open agent card and JSON-RPC at
 * POST /a2a (Bearer API token; `x-toolnexus-user` names the caller). Both spellings of each
 * method answer: A2A v0.3's (`message/send`, …), which the card advertises, and the SPEC's /
 * A2A 1.0's (`SendMessage`, …), with the same v0.3 shapes.
 */
import { Hono } from "hono";
import type { AgentDefinition } from "../../agent";
import type { ApproverGroupsInit } from "../../approvals/groups";
import { bearerAuth } from "../../http/auth";
import { jsonDepth, MAX_JSON_DEPTH, readBoundedBytes } from "../../http/body";
import type { EdgeEnv } from "../../settings";
import { publicBase } from "../../approvals/links";
import { callerIdentity } from "../caller";
import { agentCard } from "./card";
import { parseRpc, RPC, RpcError, rpcFailure, rpcResult, type RpcRequest } from "./jsonrpc";
import {
  type A2AContext,
  acceptMessage,
  cancelTask,
  getTask,
  sendMessage,
  taskRun,
} from "./methods";
import { deletePushConfig, getPushConfig, listPushConfigs, setPushConfig } from "./push";
import type { A2ATask } from "./task";
import { v1Task, wantsV1 } from "./v1";
import { readTaskId } from "./params";
import { taskStream } from "./stream";

/** JSON-RPC bodies up to 1 MiB (a larger one is `413` before it is parsed). */
export const MAX_A2A_BODY_BYTES = 1024 * 1024;

type Unary = (ctx: A2AContext, params: Record<string, unknown>, v1: boolean) => Promise<unknown>;

const sendShaped: Unary = async (ctx, params, v1) => {
  const task = await sendMessage(ctx, params);
  return v1 ? { task: v1Task(task) } : task;
};
const taskShaped =
  (method: (ctx: A2AContext, params: Record<string, unknown>) => Promise<A2ATask>): Unary =>
  async (ctx, params, v1) => {
    const task = await method(ctx, params);
    return v1 ? v1Task(task) : task;
  };
const push =
  (
    method: (
      ctx: A2AContext,
      params: Record<string, unknown>,
      dialect: "v03" | "v1",
    ) => Promise<unknown>,
    dialect: "v03" | "v1",
  ): Unary =>
  (ctx, params) =>
    method(ctx, params, dialect);

/**
 * v0.3's names (the card's 0.3 interface) and 1.0's (the card's 1.0 interface, and SPEC §7B).
 * A `Map`, never a plain object: the method name comes from the request, and a plain object
 * would answer `constructor`, `toString` or `__proto__` with Object's own members (issue 37:
 * `constructor` once returned the whole worker env).
 */
const UNARY: ReadonlyMap<string, Unary> = new Map<string, Unary>([
  ["message/send", sendShaped],
  ["SendMessage", sendShaped],
  ["tasks/get", taskShaped(getTask)],
  ["GetTask", taskShaped(getTask)],
  ["tasks/cancel", taskShaped(cancelTask)],
  ["CancelTask", taskShaped(cancelTask)],
  ["tasks/pushNotificationConfig/set", push(setPushConfig, "v03")],
  ["CreateTaskPushNotificationConfig", push(setPushConfig, "v1")],
  ["tasks/pushNotificationConfig/get", push(getPushConfig, "v03")],
  ["GetTaskPushNotificationConfig", push(getPushConfig, "v1")],
  ["tasks/pushNotificationConfig/list", push(listPushConfigs, "v03")],
  ["ListTaskPushNotificationConfigs", push(listPushConfigs, "v1")],
  ["ListTaskPushNotificationConfig", push(listPushConfigs, "v1")],
  ["tasks/pushNotificationConfig/delete", push(deletePushConfig, "v03")],
  ["DeleteTaskPushNotificationConfig", push(deletePushConfig, "v1")],
]);

const STREAMING = new Set([
  "message/stream",
  "SendStreamingMessage",
  "tasks/resubscribe",
  "SubscribeToTask",
]);
const RESUBSCRIBE = new Set(["tasks/resubscribe", "SubscribeToTask"]);

async function streamFor(ctx: A2AContext, request: RpcRequest, v1: boolean): Promise<Response> {
  const accepted = RESUBSCRIBE.has(request.method)
    ? { taskId: readTaskId(request.params) }
    : await acceptMessage(ctx, request.params);
  const { stub } = await taskRun(ctx, accepted.taskId);
  return taskStream(
    { stub, runId: accepted.taskId },
    { id: request.id, signal: ctx.signal },
    {
      ...(accepted.answered ? { answered: accepted.answered } : {}),
      v1,
      viewer: ctx.caller,
    },
  );
}

export function a2aRoutes(agents: AgentDefinition[], approverGroups?: ApproverGroupsInit) {
  return new Hono<{ Bindings: EdgeEnv }>()
    .get("/.well-known/agent-card.json", (c) => c.json(agentCard(agents, publicBase(c))))
    .post("/a2a", bearerAuth(), async (c) => {
      const bytes = await readBoundedBytes(c, MAX_A2A_BODY_BYTES);
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
      } catch {
        return c.json(
          rpcFailure(null, new RpcError(RPC.parseError, "the body is not valid UTF-8")),
        );
      }
      if (jsonDepth(text) > MAX_JSON_DEPTH) {
        return c.json(
          rpcFailure(
            null,
            new RpcError(RPC.parseError, `JSON nested deeper than ${MAX_JSON_DEPTH} levels`),
          ),
        );
      }
      const parsed = parseRpc(text);
      if (!parsed.ok) {
        return c.json(rpcFailure(parsed.id, parsed.error));
      }
      const { request } = parsed;
      try {
        const caller = callerIdentity(c.req.raw.headers);
        if (!caller.ok) {
          throw new RpcError(RPC.invalidParams, caller.message);
        }
        const ctx: A2AContext = {
          env: c.env,
          agents,
          approverGroups,
          caller: caller.id,
          base: publicBase(c),
          signal: c.req.raw.signal,
        };
        const v1 = wantsV1(c.req.raw.headers, request.params);
        if (STREAMING.has(request.method)) {
          return await streamFor(ctx, request, v1);
        }
        const method = UNARY.get(request.method);
        if (!method) {
          throw new RpcError(RPC.methodNotFound, `no method ${JSON.stringify(request.method)}`);
        }
        return c.json(rpcResult(request.id, await method(ctx, request.params, v1)));
      } catch (error) {
        if (error instanceof RpcError) {
          return c.json(rpcFailure(request.id, error));
        }
        throw error;
      }
    });
}
