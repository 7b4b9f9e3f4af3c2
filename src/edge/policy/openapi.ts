/**
 * The policy route's part of /openapi.json (issue 43), spread into `paths` by
 * src/edge/http/openapi/document.ts (`...POLICY_PATHS`). Schemas are inline: only this route uses them.
 */
import { error } from "../http/openapi/parts";

const SIDE = {
  type: "object",
  required: ["policy", "decision"],
  properties: {
    policy: { type: "string", description: '"in-code", "authzen", "cedar:<hash8>", …' },
    decision: { type: "string", enum: ["allow", "deny", "ask"] },
    rules: { type: "object", description: "With ask: the approver rules it would ask under" },
    reason: { type: "string", description: "With deny: what the model would be told" },
  },
};

export const POLICY_PATHS = {
  "/v1/policy/disagreements": {
    get: {
      operationId: "listPolicyDisagreements",
      summary:
        "Calls on which the shadow policy (shadowPolicy, AUTHZEN_SHADOW_URL) would have decided otherwise than the live one, oldest first",
      security: [{ bearer: [] }],
      parameters: [
        {
          name: "cursor",
          in: "query",
          required: false,
          description: "The previous page's nextCursor",
          schema: { type: "string" },
        },
        {
          name: "limit",
          in: "query",
          required: false,
          description: "1–200, default 50",
          schema: { type: "integer", minimum: 1, maximum: 200 },
        },
      ],
      responses: {
        200: {
          description: "A page of disagreements",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["items", "nextCursor"],
                properties: {
                  items: {
                    type: "array",
                    items: {
                      type: "object",
                      required: ["tool", "live", "shadow", "runId", "threadId", "agent", "at"],
                      properties: {
                        tool: { type: "string" },
                        callId: { type: "string" },
                        live: SIDE,
                        shadow: SIDE,
                        runId: { type: "string" },
                        threadId: { type: "string" },
                        agent: { type: "string" },
                        at: { type: "string", description: "RFC 3339" },
                      },
                    },
                  },
                  nextCursor: { type: ["string", "null"], description: "Null on the last page" },
                },
              },
            },
          },
        },
        400: error("invalid_query: a limit or cursor this route does not take"),
        401: error("Bad or missing token"),
      },
    },
  },
};
