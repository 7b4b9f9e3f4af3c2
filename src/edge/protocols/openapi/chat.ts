/** The chat protocols' part of /openapi.json (src/edge/http/openapi/document.ts spreads it in). */
import { error } from "../../http/openapi/parts";

const agent = { name: "agent", in: "path", required: true, schema: { type: "string" } };
const conversationId = {
  name: "id",
  in: "path",
  required: true,
  description: "The chat id (per caller: another user's same id is another conversation)",
  schema: { type: "string", maxLength: 200 },
};
const user = {
  name: "x-toolnexus-user",
  in: "header",
  required: false,
  description: "The person the backend acts for (requestedBy / decidedBy); absent: anonymous",
  schema: { type: "string", maxLength: 320 },
};
const sse = (description: string) => ({
  description,
  content: { "text/event-stream": { schema: { type: "string" } } },
});
/** A body of the protocol's own shape: its required members named, the rest passed through. */
const looseBody = (description: string, required: Record<string, Record<string, unknown>>) => ({
  required: true,
  content: {
    "application/json": {
      schema: {
        type: "object",
        description,
        required: Object.keys(required),
        properties: required,
        additionalProperties: true,
      },
    },
  },
});
const errors = {
  400: error("invalid_body, invalid_user, unsupported_trigger / unsupported_tools, nothing to do"),
  401: error("missing or invalid bearer token (and no Access identity)"),
  403: error(
    "not_an_approver / own_request: the caller may not decide that request; forbidden_origin: a browser request identified by Cloudflare Access (no Authorization header) whose Origin is neither this worker's nor in CORS_ORIGINS",
  ),
  404: error("unknown agent, approval id or interrupt (another thread's included)"),
  409: error("request no longer pending or expired; thread_busy"),
  413: error("body over 1 MiB"),
  415: error(
    "unsupported_media_type: the body is not declared JSON (content-type: application/json)",
  ),
};
const security = [{ bearer: [] }];

export const PROTOCOL_PATHS = {
  "/v1/chat/{agent}": {
    post: {
      operationId: "chatStream",
      summary:
        "AI SDK UI message stream (useChat / DefaultChatTransport): a new user message starts a run; approval responses (approval.descriptor.argsHash: the version shown; older is 409 args_changed) and tool outputs answer its requests (channel chat); a new message in a body that also answers the active run waits behind it instead of 409 thread_busy",
      security,
      parameters: [agent, user],
      requestBody: looseBody(
        "{ id, messages: [{ id, role, parts }], trigger?, messageId?, edits?: { <approvalId>: args } }",
        {
          id: { type: "string", description: "The chat id" },
          messages: { type: "array", items: { type: "object" }, description: "UI messages" },
        },
      ),
      responses: {
        200: sse(
          "UI message stream (x-vercel-ai-ui-message-stream: v1): start, text-*, tool-input-available, tool-output-*, tool-approval-request (approvalDescriptor: { argsHash }), data-toolnexus-waiting, data-toolnexus-decision, data-toolnexus-subagent, finish, error; `: keep-alive` comments every 15 s while it waits",
        ),
        ...errors,
      },
    },
  },
  "/v1/chat/{agent}/{id}/stream": {
    get: {
      operationId: "chatResumeStream",
      summary: "Resume the conversation's active run's stream (useChat({ resume: true }))",
      security,
      parameters: [agent, conversationId, user],
      responses: {
        200: sse("The active run's UI message stream, replayed then live"),
        204: { description: "No active run" },
        401: errors[401],
        404: errors[404],
      },
    },
  },
  "/v1/chat/{agent}/{id}/messages": {
    get: {
      operationId: "chatMessages",
      summary: "The conversation as UI messages (the active run's answer is its stream)",
      security,
      parameters: [agent, conversationId, user],
      responses: {
        200: {
          description: "{ messages }",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["messages"],
                properties: { messages: { type: "array", items: { type: "object" } } },
              },
            },
          },
        },
        401: errors[401],
        404: errors[404],
      },
    },
  },
  "/v1/ag-ui/{agent}": {
    post: {
      operationId: "agUiRun",
      summary:
        "AG-UI 1.0: RunAgentInput in, events out; a paused run ends with an interrupt outcome (metadata.argsHash on approvals) and the next input's resume answers it (channel ag-ui; payload { approved, reason?, editedArgs?, argsHash? }, an older argsHash is 409 args_changed)",
      security,
      parameters: [agent, user],
      requestBody: looseBody(
        "RunAgentInput { threadId, runId, messages, tools?, context?, state?, forwardedProps?, resume? }",
        {
          threadId: { type: "string" },
          runId: { type: "string" },
          messages: { type: "array", items: { type: "object" } },
        },
      ),
      responses: {
        200: sse(
          "AG-UI events: RUN_STARTED, STATE_SNAPSHOT, TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK (the chunked form), TOOL_CALL_RESULT, CUSTOM toolnexus.decision / toolnexus.waiting, SUBAGENT_* (runs with a team), RUN_FINISHED (success, cancelled or interrupt), RUN_ERROR; `: keep-alive` comments every 15 s while it waits",
        ),
        ...errors,
      },
    },
  },
};
