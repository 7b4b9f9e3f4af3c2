/**
 * A2A inbound (SPEC §7B plus the waiting states): the open agent card and JSON-RPC at
 * POST /a2a (Bearer API token; `x-toolnexus-user` names the caller). Both spellings of each
 * method answer: A2A v0.3's (`message/send`, …), which the card advertises, and the SPEC's /
 * A2A 1.0's (`SendMessage`, …), with the same v0.3 shapes.
 */
import { Hono } from "hono";
import type { AgentDefinition } from "../../agent";
import type { ApproverGroupsInit } from "../../approver-groups";
import { bearerAuth } from "../../auth";
import { jsonDepth, MAX_JSON_DEPTH, readBoundedBytes } from "../../body";
import type { EdgeEnv } from "../../config";
import { publicBase } from "../../links";
import { callerIdentity } from "../identity";
import { agentCard } from "./card";
import { parseRpc, RPC, RpcError, rpcFailure, rpcResult, type RpcRequest } from "./jsonrpc";
import {
  type A2AContext,
  acceptMessage,
  cancelTask,
  getTask,
  pushConfigs,
  pushConfigWrite,
  sendMessage,
  taskRun,
} from "./methods";
import { readTaskId } from "./params";
import { taskStream } from "./stream";

/** JSON-RPC bodies up to 1 MiB (a larger one is `413` before it is parsed). */
export const MAX_A2A_BODY_BYTES = 1024 * 1024;

type Unary = (ctx: A2AContext, params: Record<string, unknown>) => Promise<unknown>;

async function pushConfig(ctx: A2AContext, params: Record<string, unknown>) {
  const [config] = await pushConfigs(ctx, params);
  if (!config) {
    throw new RpcError(
      RPC.invalidParams,
      "this task was started without a push notification config",
    );
  }
  return config;
}

const UNARY: Record<string, Unary> = {
  "message/send": sendMessage,
  SendMessage: sendMessage,
  "tasks/get": getTask,
  GetTask: getTask,
  "tasks/cancel": cancelTask,
  CancelTask: cancelTask,
  "tasks/pushNotificationConfig/get": (ctx, params) => pushConfig(ctx, params),
  GetTaskPushNotificationConfig: (ctx, params) => pushConfig(ctx, params),
  "tasks/pushNotificationConfig/list": pushConfigs,
  ListTaskPushNotificationConfigs: pushConfigs,
  ListTaskPushNotificationConfig: pushConfigs,
  "tasks/pushNotificationConfig/set": async () => pushConfigWrite(),
  CreateTaskPushNotificationConfig: async () => pushConfigWrite(),
  "tasks/pushNotificationConfig/delete": async () => pushConfigWrite(),
  DeleteTaskPushNotificationConfig: async () => pushConfigWrite(),
};

const STREAMING = new Set([
  "message/stream",
  "SendStreamingMessage",
  "tasks/resubscribe",
  "SubscribeToTask",
]);
const RESUBSCRIBE = new Set(["tasks/resubscribe", "SubscribeToTask"]);

async function streamFor(ctx: A2AContext, request: RpcRequest): Promise<Response> {
  const accepted = RESUBSCRIBE.has(request.method)
    ? { taskId: readTaskId(request.params) }
    : await acceptMessage(ctx, request.params);
  const { stub } = await taskRun(ctx, accepted.taskId);
  return taskStream(stub, accepted.taskId, request.id, ctx.signal, accepted.answered);
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
        if (STREAMING.has(request.method)) {
          return await streamFor(ctx, request);
        }
        const method = UNARY[request.method];
        if (!method) {
          throw new RpcError(RPC.methodNotFound, `no method ${JSON.stringify(request.method)}`);
        }
        return c.json(rpcResult(request.id, await method(ctx, request.params)));
      } catch (error) {
        if (error instanceof RpcError) {
          return c.json(rpcFailure(request.id, error));
        }
        throw error;
      }
    });
}
