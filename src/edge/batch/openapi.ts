/** The batch decision routes' part of /openapi.json (src/edge/http/openapi/document.ts spreads it in). */
import { error, html, json, ref } from "../http/openapi/parts";
import { BatchItemSchema, BatchResultSchema, BatchResultsSchema, BatchSchema } from "./schemas";

/** The schemas its paths name, for the document's components. */
export const BATCH_SCHEMAS = {
  BatchSchema,
  BatchItemSchema,
  BatchResultSchema,
  BatchResultsSchema,
};

export const BATCH_PATHS = {
  "/v1/approvals/batch": {
    post: {
      operationId: "decideBatch",
      summary:
        "Several decisions at once: each goes through its run's ledger on its own and answers its own status",
      description:
        "Bearer API token with x-toolnexus-user naming who decides (channel webhook), or a browser behind Cloudflare Access (channel inbox; same-site Origin, JSON only). Items of one run are decided in the order given (a repeated item is the ledger's duplicate, status 200); one refused item never blocks the others. An item whose argsHash is stale answers { requestId, status: 409, code: args_changed } inside the 200.",
      security: [{ bearer: [] }],
      parameters: [
        {
          name: "x-toolnexus-user",
          in: "header",
          required: false,
          description:
            "Who decides (a member id or identity); without it the caller is anonymous and may decide only requests without approver rules",
          schema: { type: "string" },
        },
      ],
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref("BatchDecisions") } },
      },
      responses: {
        200: json("BatchDecisionResults", "One result per decision, in the same order"),
        400: error(
          "invalid_json, invalid_body (no decisions, a malformed item: named in issues), too_many_decisions (over 100), invalid_user",
        ),
        401: error("Bad or missing token"),
        403: error("forbidden_origin: a browser's write from another site"),
        413: error("Body over 256 KiB"),
        415: error("Not JSON"),
      },
    },
  },
  "/inbox/batch": {
    post: {
      operationId: "decideBatchInInbox",
      summary:
        "The inbox page's batch decision (form: csrf, decision=approve|decline; select=<runId> <requestId> for the pre-flight table, then confirm=1 with item=<runId> <requestId> <argsHash> and reason; ≤ 64 KiB)",
      requestBody: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: { type: "object" } } },
      },
      security: [],
      responses: {
        200: html("The pre-flight table, or each request's outcome"),
        400: html("Nothing selected, over 100, or no decision chosen"),
        401: html("Not signed in"),
        403: html("Missing or wrong CSRF token, or posted from another site"),
        413: html("Form over 64 KiB"),
      },
    },
  },
};
