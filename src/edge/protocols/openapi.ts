/**
 * The protocol endpoints in the OpenAPI document: the A2A agent card, A2A JSON-RPC and the
 * MCP server. Their bodies are JSON-RPC 2.0 envelopes, described as such (each method's
 * params follow the A2A v0.3 and MCP specifications, not repeated here).
 */
import { error } from "../openapi-parts";

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

export const PROTOCOL_PATHS = {
  "/.well-known/agent-card.json": {
    get: {
      summary: "A2A agent card (open): each agent a skill, the JSON-RPC endpoint, Bearer auth",
      responses: {
        200: {
          description: "A2A v0.3 agent card",
          content: { "application/json": { schema: { type: "object" } } },
        },
      },
    },
  },
  "/a2a": {
    post: {
      summary:
        "A2A JSON-RPC (message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe, tasks/pushNotificationConfig/*; also SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask)",
      description:
        "A task is a run (id = runId, metadata.runId), contextId is the thread, metadata.skill picks the agent. Errors are JSON-RPC errors with HTTP 200: -32700 parse, -32600 invalid request, -32601 unknown method, -32602 invalid params, -32001 unknown task, -32002 not cancelable, -32003 push config not settable, -32004 refused (a request decided by a group, another identity's task, already answered). Streaming methods answer text/event-stream.",
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
      summary: "MCP server, streamable HTTP: each agent a tool { prompt, threadId? }, plus get_run",
      description:
        "One session per mcp-session-id (a McpSessionObject). A call waiting on a request the caller may answer elicits it; otherwise it returns within 20 s a text result (isError false) saying the run is pending, with the run id and the approval link.",
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
        401: error("missing or invalid bearer token"),
      },
    },
  },
};
