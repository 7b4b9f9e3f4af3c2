/**
 * A run's tool calls in /openapi.json: the `ToolCall` entry of `GET /v1/runs/:runId` (kept
 * whole, with `truncated` when the model was sent less) and the route that serves one call's
 * whole output (document.ts spreads it in; docs/http-api.md).
 */
import * as z from "zod";
import { error } from "./parts";

export const ToolCallRecordSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    args: z.unknown(),
    output: z.string().describe("The tool's whole output"),
    isError: z.boolean(),
    truncated: z
      .object({ total: z.number().int(), shown: z.number().int() })
      .optional()
      .describe(
        "Present when the model was sent only the first `shown` of the output's `total` UTF-8 bytes (the agent's maxToolOutputBytes, or the tool's maxOutputBytes)",
      ),
    compensable: z
      .literal(true)
      .optional()
      .describe(
        "The call completed and its tool has a compensate: an undo (POST /v1/runs/{runId}/undo) takes it back",
      ),
  })
  .meta({ id: "ToolCall" });

const runId = { name: "runId", in: "path", required: true, schema: { type: "string" } };
const callId = { name: "callId", in: "path", required: true, schema: { type: "string" } };

export const TOOL_CALL_PATHS = {
  "/v1/runs/{runId}/tool-calls/{callId}/output": {
    get: {
      operationId: "getToolCallOutput",
      summary:
        "A finished tool call's whole output, as raw UTF-8 text (the model may have been sent only its first part: maxToolOutputBytes)",
      security: [{ bearer: [] }],
      parameters: [runId, callId],
      responses: {
        200: {
          description: "The output, byte for byte as the tool returned it",
          content: { "text/plain; charset=utf-8": { schema: { type: "string" } } },
        },
        401: error("Bad or missing token"),
        404: error(
          "run_not_found: no such run; tool_call_not_found: the run (or one of its sub-agents) has no finished call with this id",
        ),
      },
    },
  },
};
