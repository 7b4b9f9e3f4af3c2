/**
 * The MCP server of one session (SPEC §7C, §7D): each agent a tool taking `{ prompt,
 * threadId? }` and returning the run's answer, plus `get_run` to read a run later. Built on
 * the SDK's JSON-RPC layer (./protocol-server: the SDK's `Server` would bring ajv along).
 */
import {
  CancelTaskRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ElicitRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { AgentDefinition } from "../../agent";
import type { ApproverGroupsInit } from "../../approvals/groups";
import type { EdgeEnv } from "../../settings";
import { threadOf, threadStub } from "../../http/threads";
import { callerIdentity, runForCaller } from "../caller";
import { errorMessage } from "../../../core/errors";
import { callAgent, type CallDeps, finishedResult, pendingText, startCall } from "./call-agent";
import { cancelTask, runTaskStore, taskOf } from "./run-tasks";
import { callPlainTool, type PlainTool, plainTools } from "./plain-tools";
import { type ServerExtra, SessionProtocolServer } from "./protocol-server";
import { AGENT_INPUT, GET_RUN_DESCRIPTION, GET_RUN_INPUT, GET_RUN_TOOL } from "./tool-inputs";
import { unpack } from "../../packed";

export interface SessionOptions {
  env: EdgeEnv;
  agents: AgentDefinition[];
  approverGroups: ApproverGroupsInit | undefined;
  base: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function sessionServer(options: SessionOptions): SessionProtocolServer {
  // What the task store needs of a call's deps: it answers for no caller and never elicits.
  const storeDeps: CallDeps = {
    env: options.env,
    approverGroups: options.approverGroups,
    base: options.base,
    caller: undefined,
    signal: new AbortController().signal,
    elicitation: { form: false, url: false },
    elicit: () => Promise.reject(new Error("a task store does not elicit")),
  };
  const server = new SessionProtocolServer(
    { name: "toolnexus-edge", version: "0.1.0" },
    {
      capabilities: {
        tools: {},
        // MCP tasks (2025-11-25): an agent call may be a task whose id is its run id.
        tasks: { cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore: runTaskStore(() => storeDeps),
    },
  );

  const reserved = new Set([...options.agents.map((a) => a.name), GET_RUN_TOOL]);
  const exposed = () => plainTools(options.agents, options.env, reserved);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      ...options.agents.map((agent) => ({
        name: agent.name,
        description: agent.description,
        inputSchema: AGENT_INPUT,
        execution: { taskSupport: "optional" as const },
      })),
      {
        name: GET_RUN_TOOL,
        description: GET_RUN_DESCRIPTION,
        inputSchema: GET_RUN_INPUT,
      },
      ...(await exposedOrFail(exposed)).map(({ tool }) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema as { type: "object" },
      })),
    ],
  }));

  // Replaces the SDK's tasks/cancel, which cannot tell who calls (issue 37).
  server.setRequestHandler(CancelTaskRequestSchema, async (request, extra) => ({
    _meta: {},
    ...(await cancelTask({ ...storeDeps, caller: callerOf(extra) }, request.params.taskId)),
  }));

  server.onCallTool(async (request, extra): Promise<CallToolResult> => {
    const args = isRecord(request.params.arguments) ? request.params.arguments : {};
    const caller = callerOf(extra);
    const capabilities = server.getClientCapabilities()?.elicitation as
      | { form?: object; url?: object }
      | undefined;
    const progressToken = extra._meta?.progressToken;
    const deps: CallDeps = {
      env: options.env,
      approverGroups: options.approverGroups,
      base: options.base,
      caller,
      signal: extra.signal,
      // An empty `elicitation: {}` is form support (the 2025-06-18 shape).
      elicitation: {
        form:
          capabilities !== undefined &&
          (capabilities.form !== undefined || capabilities.url === undefined),
        url: capabilities?.url !== undefined,
      },
      ...(progressToken === undefined
        ? {}
        : {
            progress: (progress: number, message: string) =>
              extra.sendNotification({
                method: "notifications/progress",
                params: { progressToken, progress, message },
              }),
          }),
      elicit: (params) =>
        extra.sendRequest(
          { method: "elicitation/create", params } as ElicitRequest,
          ElicitResultSchema,
          { timeout: 10 * 60_000 },
        ),
    };
    if (request.params.name === GET_RUN_TOOL) {
      return getRun(deps, args.runId);
    }
    const agent = options.agents.find((a) => a.name === request.params.name);
    const plain = agent
      ? undefined
      : (await exposedOrFail(exposed)).find((p) => p.tool.name === request.params.name);
    if (plain) {
      return callPlainTool(plain, args, extra.signal);
    }
    if (!agent) {
      throw new McpError(ErrorCode.InvalidParams, `no tool ${JSON.stringify(request.params.name)}`);
    }
    if (typeof args.prompt !== "string" || !args.prompt.trim()) {
      throw new McpError(ErrorCode.InvalidParams, "prompt must be a non-empty string");
    }
    if (args.threadId !== undefined && typeof args.threadId !== "string") {
      throw new McpError(ErrorCode.InvalidParams, "threadId must be a string");
    }
    const callArgs = {
      prompt: args.prompt,
      ...(typeof args.threadId === "string" ? { threadId: args.threadId } : {}),
    };
    if (request.params.task) {
      // A task: the run starts and the call returns at once; tasks/get and tasks/result follow it.
      const started = await startCall(deps, agent, callArgs);
      if (!started.ok) {
        const why = started.result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
        throw new McpError(ErrorCode.InvalidParams, why);
      }
      return { task: await taskOf(storeDeps, started.run) } as unknown as CallToolResult;
    }
    return callAgent(deps, agent, callArgs);
  });
  return server;
}

/** Who a request is from: `x-toolnexus-user` beside the token (undefined: anonymous). */
function callerOf(extra: ServerExtra): string | undefined {
  const headers = new Headers(extra.requestInfo?.headers as Record<string, string> | undefined);
  const caller = callerIdentity(headers);
  if (!caller.ok) {
    throw new McpError(ErrorCode.InvalidParams, caller.message);
  }
  return caller.id;
}

/** A misconfigured exposure is the server's error (-32603 naming the tool), not the caller's. */
async function exposedOrFail(exposed: () => Promise<PlainTool[]>): Promise<PlainTool[]> {
  try {
    return await exposed();
  } catch (error) {
    throw new McpError(ErrorCode.InternalError, errorMessage(error));
  }
}

async function getRun(deps: CallDeps, runId: unknown): Promise<CallToolResult> {
  if (typeof runId !== "string" || !runId) {
    throw new McpError(ErrorCode.InvalidParams, "runId must be a non-empty string");
  }
  const threadId = threadOf(runId);
  const stored = threadId
    ? await unpack(await threadStub(deps.env, threadId).getRun(runId))
    : undefined;
  if (!stored) {
    throw new McpError(ErrorCode.InvalidParams, `no run ${runId}`);
  }
  const view = runForCaller(stored, deps.caller);
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
    return {
      content: [{ type: "text", text: await pendingText(deps, view, view.pending) }],
      structuredContent,
    };
  }
  return { ...finishedResult(view), structuredContent };
}
