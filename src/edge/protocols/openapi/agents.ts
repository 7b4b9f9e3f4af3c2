/**
 * The protocol endpoints in the OpenAPI document: the A2A agent card, A2A JSON-RPC and the
 * MCP server. Their bodies are JSON-RPC 2.0 envelopes, described as such (each method's
 * params follow the A2A v0.3 / 1.0 and MCP specifications, not repeated here).
 */
import { error } from "../../http/openapi/parts";

const bearer = [{ bearer: [] }];

const envelope = {
  type: "object",
  required: ["jsonrpc", "id", "method"],
  properties: {
    jsonrpc: { const: "2.0" },
    id: { type: ["string", "number"] },
    method: { type: "string" },
    params: { type: "object" },
  },
};

const rpcResponse = {
  type: "object",
  required: ["jsonrpc", "id"],
  properties: {
    jsonrpc: { const: "2.0" },
    id: { type: ["string", "number", "null"] },
    result: {},
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "integer" }, message: { type: "string" }, data: {} },
    },
  },
};

const callerHeader = {
  name: "x-toolnexus-user",
  in: "header",
  required: false,
  description:
    "Who the caller acts for (requestedBy on a new run, decidedBy on an answer); absent = anonymous",
  schema: { type: "string", maxLength: 320 },
};

export const AGENT_PROTOCOL_PATHS = {
  "/.well-known/agent-card.json": {
    get: {
      operationId: "getAgentCard",
      security: [],
      summary: "A2A agent card (open): each agent a skill, the JSON-RPC endpoint, Bearer auth",
      responses: {
        200: {
          description:
            "One card for A2A v0.3 (protocolVersion 0.3.0, url, preferredTransport JSONRPC) and 1.0 (supportedInterfaces: the 1.0 JSON-RPC interface first, then 0.3, both at /a2a); capabilities.streaming and pushNotifications true",
          content: { "application/json": { schema: { type: "object" } } },
        },
      },
    },
  },
  "/a2a": {
    post: {
      operationId: "a2aJsonRpc",
      summary:
        "A2A JSON-RPC: v0.3's message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe, tasks/pushNotificationConfig/{set,get,list,delete}, and 1.0's SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask, {Create,Get,Delete}TaskPushNotificationConfig, ListTaskPushNotificationConfigs",
      description:
        "A task is a run (id = runId, metadata.runId), contextId is the thread, metadata.skill picks the agent. A request with the header A2A-Version: 1.x (or a message with a ROLE_* role) is answered in A2A 1.0's shapes (TASK_STATE_*, untagged parts, { task } / { statusUpdate } wrappers, flat push configs); otherwise v0.3's. A waiting task's status message carries the request as a data part (id, kind, prompt, tool, subagent (a sub-agent's request: the handle its data.path names), args, argsHash, expiresAt, decidedBy). One push config per task (id \"callback\"): the run's callbackUrl, checked like one (CALLBACK_ALLOW), notified with our signed run.pending / run.reminder / run.escalated bodies. Errors are JSON-RPC errors with HTTP 200: -32700 parse, -32600 invalid request, -32601 unknown method, -32602 invalid params, -32001 unknown task, -32002 not cancelable, -32004 refused (a request decided by a group — the message names it —, another identity's task, a contextId whose earlier tasks another identity (or an anonymous caller) started, already answered), -32603 in an SSE stream that failed after it started.",
      security: bearer,
      parameters: [callerHeader],
      requestBody: { required: true, content: { "application/json": { schema: envelope } } },
      responses: {
        200: {
          description: "A JSON-RPC response, or an SSE stream of them for the streaming methods",
          content: {
            "application/json": { schema: rpcResponse },
            "text/event-stream": { schema: { type: "string" } },
          },
        },
        401: error("missing or invalid bearer token"),
        413: error("body over 1 MiB"),
      },
    },
  },
  "/mcp": {
    post: {
      operationId: "mcpStreamableHttp",
      summary: "MCP server, streamable HTTP: each agent a tool { prompt, threadId? }, plus get_run",
      description:
        "One session per mcp-session-id (a McpSessionObject); a session its object no longer holds (evicted) is 404 with JSON-RPC -32001: initialize again. Tools: each agent { prompt, threadId? }, get_run { runId }, and the plain tools agents expose (mcpServerTools). A call waiting on an input request the caller may answer elicits it (form); an authorization request is a url-mode elicitation; otherwise it returns within 20 s a text result (isError false) saying the run is pending, with the run id and the approval link. MCP tasks (2025-11-25): a tools/call with params.task returns a task whose taskId is the run id; tasks/get, tasks/result and tasks/cancel follow the run (tasks/cancel only for the identity that started it). A threadId continues only the caller's own conversation: one whose earlier runs another identity (x-toolnexus-user, or none) started is an error result thread_forbidden. Protocol versions: initialize answers 2026-07-28 or 2025-11-25 (and earlier) as asked. MCP 2026-07-28 needs no session (server/discover; each request names the version in _meta): a run waiting on the caller returns resultType input_required with inputRequests and a signed requestState (call again with inputResponses; a tampered state is JSON-RPC -32602, nothing written); a run waiting on approvers returns a task of the io.modelcontextprotocol/tasks extension (tasks/get, tasks/update, tasks/cancel) to a client declaring it, else input_required with only a requestState.",
      security: bearer,
      parameters: [callerHeader],
      requestBody: { required: true, content: { "application/json": { schema: envelope } } },
      responses: {
        200: {
          description: "JSON-RPC response(s), as JSON or an SSE stream",
          content: {
            "application/json": { schema: rpcResponse },
            "text/event-stream": { schema: { type: "string" } },
          },
        },
        400: error("a first request that is not initialize"),
        401: error("missing or invalid bearer token"),
        404: error("unknown MCP session (JSON-RPC -32001): initialize a new one"),
        413: error("body over 1 MiB"),
      },
    },
  },
};
