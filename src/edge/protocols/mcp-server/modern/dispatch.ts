/**
 * One JSON-RPC message of MCP 2026-07-28 to /mcp, answered as JSON. The revision is stateless:
 * every request carries its protocol version and the client's capabilities in `_meta`, so a
 * request needs no session (a host that opened one with `initialize` at 2026-07-28 is answered
 * here too, with the capabilities it declared then as the fallback). Methods: `server/discover`,
 * `tools/list`, `tools/call` (./call-tool), the tasks extension's `tasks/get`, `tasks/update`,
 * `tasks/cancel` (./tasks), and `ping`. A notification is accepted with 202 and no body.
 */
import { errorMessage } from "../../../../core/errors";
import { callPlainTool, plainTools } from "../plain-tools";
import { AGENT_INPUT, GET_RUN_DESCRIPTION, GET_RUN_INPUT, GET_RUN_TOOL } from "../tool-inputs";
import { callAgentModern } from "./call-tool";
import { cancelTask, getTask, updateTask } from "./tasks";
import { getRunModern } from "./get-run";
import {
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  MODERN_VERSION,
  type ModernContext,
  RpcError,
  SERVER_INFO,
  SERVER_INFO_META_KEY,
  MODERN_CAPABILITIES,
} from "./wire";

type Params = Record<string, unknown>;
type Handler = (ctx: ModernContext, params: Params) => Promise<Record<string, unknown>>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const rpcResponse = (id: unknown, body: Record<string, unknown>, status = 200) =>
  Response.json({ jsonrpc: "2.0", id: id ?? null, ...body }, { status });

/** Answers one parsed message (a request or a notification). */
export async function dispatchModern(ctx: ModernContext, message: unknown): Promise<Response> {
  if (!isRecord(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string") {
    return rpcResponse(
      null,
      { error: { code: -32600, message: "not a JSON-RPC 2.0 message" } },
      400,
    );
  }
  if (message.id === undefined) {
    return new Response(null, { status: 202 });
  }
  const method = message.method;
  const handler = Object.hasOwn(HANDLERS, method) ? HANDLERS[method] : undefined;
  if (!handler) {
    return rpcResponse(message.id, {
      error: { code: METHOD_NOT_FOUND, message: `method ${method} is not offered` },
    });
  }
  try {
    const params = isRecord(message.params) ? message.params : {};
    const result = await handler(ctx, params);
    return rpcResponse(message.id, {
      result: { ...result, _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO } },
    });
  } catch (error) {
    if (error instanceof RpcError) {
      return rpcResponse(message.id, {
        error: {
          code: error.code,
          message: error.message,
          ...(error.data === undefined ? {} : { data: error.data }),
        },
      });
    }
    return rpcResponse(message.id, { error: { code: -32603, message: errorMessage(error) } });
  }
}

const HANDLERS: Record<string, Handler> = {
  "server/discover": async () => ({
    resultType: "complete",
    supportedVersions: [MODERN_VERSION],
    capabilities: MODERN_CAPABILITIES,
    ttlMs: 0,
    cacheScope: "private",
  }),
  ping: async () => ({ resultType: "complete" }),
  "tools/list": listTools,
  "tools/call": callTool,
  "tasks/get": getTask,
  "tasks/update": updateTask,
  "tasks/cancel": cancelTask,
};

const reservedNames = (ctx: ModernContext) =>
  new Set([...ctx.agents.map((a) => a.name), GET_RUN_TOOL]);

async function exposed(ctx: ModernContext) {
  try {
    return await plainTools(ctx.agents, ctx.env, reservedNames(ctx));
  } catch (error) {
    throw new RpcError(-32603, errorMessage(error));
  }
}

async function listTools(ctx: ModernContext): Promise<Record<string, unknown>> {
  return {
    resultType: "complete",
    // The list follows the deployed agents: a host may keep it for this long.
    ttlMs: 0,
    cacheScope: "private",
    tools: [
      ...ctx.agents.map((agent) => ({
        name: agent.name,
        description: agent.description,
        inputSchema: AGENT_INPUT,
      })),
      { name: GET_RUN_TOOL, description: GET_RUN_DESCRIPTION, inputSchema: GET_RUN_INPUT },
      ...(await exposed(ctx)).map(({ tool }) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema as { type: "object" },
      })),
    ],
  };
}

async function callTool(ctx: ModernContext, params: Params): Promise<Record<string, unknown>> {
  const name = params.name;
  const args = isRecord(params.arguments) ? params.arguments : {};
  if (name === GET_RUN_TOOL) {
    return { resultType: "complete", ...(await getRunModern(ctx, args.runId)) };
  }
  const agent = ctx.agents.find((a) => a.name === name);
  if (!agent) {
    const plain = (await exposed(ctx)).find((p) => p.tool.name === name);
    if (!plain) {
      throw new RpcError(INVALID_PARAMS, `no tool ${JSON.stringify(name)}`);
    }
    return { resultType: "complete", ...(await callPlainTool(plain, args, ctx.signal)) };
  }
  if (typeof args.prompt !== "string" || !args.prompt.trim()) {
    throw new RpcError(INVALID_PARAMS, "prompt must be a non-empty string");
  }
  if (args.threadId !== undefined && typeof args.threadId !== "string") {
    throw new RpcError(INVALID_PARAMS, "threadId must be a string");
  }
  return callAgentModern(ctx, agent, {
    prompt: args.prompt,
    ...(typeof args.threadId === "string" ? { threadId: args.threadId } : {}),
    ...(params.requestState === undefined ? {} : { requestState: params.requestState }),
    ...(params.inputResponses === undefined ? {} : { inputResponses: params.inputResponses }),
  });
}
