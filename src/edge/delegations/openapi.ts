/** The delegation routes' part of /openapi.json (src/edge/http/openapi/document.ts spreads it in). */
import { error, html, json, ref } from "../http/openapi/parts";
import { DelegationCreateSchema, DelegationListSchema, DelegationSchema } from "./schemas";

/** The schemas its paths name, for the document's components. */
export const DELEGATION_SCHEMAS = {
  DelegationCreateSchema,
  DelegationSchema,
  DelegationListSchema,
};

const user = {
  name: "x-toolnexus-user",
  in: "header",
  required: false,
  description: "The person calling (a member id or identity); a browser behind Access is its own",
  schema: { type: "string" },
};

export const DELEGATION_PATHS = {
  "/v1/approvers/delegations": {
    post: {
      operationId: "createDelegation",
      summary:
        "A member away names who decides for them until when: the ledger records the delegate's votes as decidedBy: to, onBehalfOf: from",
      security: [{ bearer: [] }],
      parameters: [user],
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref("DelegationCreate") } },
      },
      responses: {
        201: json("Delegation", "The delegation, running now"),
        400: error(
          "invalid_body, invalid_until (past, or over 90 days ahead), unknown_member (from or to in no approver group), invalid_groups (not from's)",
        ),
        401: error("Bad or missing token"),
        403: error(
          "not_your_delegation: a member delegates only themselves (x-toolnexus-user must be from); forbidden_origin",
        ),
        415: error("Not JSON"),
      },
    },
    get: {
      operationId: "listDelegations",
      summary:
        "Running delegations: those the caller gives or holds; the API token without x-toolnexus-user sees all",
      security: [{ bearer: [] }],
      parameters: [user],
      responses: {
        200: json("DelegationList", "Oldest first"),
        401: error("Bad or missing token"),
      },
    },
  },
  "/inbox/delegations": {
    get: {
      operationId: "showInboxDelegations",
      summary:
        "The signed-in member's running delegations and a form to delegate (HTML, no script)",
      security: [],
      responses: { 200: html("The page"), 401: html("Not signed in") },
    },
    post: {
      operationId: "delegateFromInbox",
      summary:
        "Delegate from the inbox (form: csrf, to, until as UTC, groups…) or end one (csrf, end=<id>); ≤ 16 KiB",
      security: [],
      requestBody: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: { type: "object" } } },
      },
      responses: {
        200: html("Done: the page again"),
        400: html("The API's checks: invalid_until, unknown_member, invalid_groups"),
        401: html("Not signed in"),
        403: html("Missing or wrong CSRF token, or posted from another site"),
        404: html("No such delegation of the member's"),
      },
    },
  },
  "/v1/approvers/delegations/{id}": {
    delete: {
      operationId: "endDelegation",
      summary:
        "Ends a delegation now (who gave it or who holds it); ending it again answers it again",
      security: [{ bearer: [] }],
      parameters: [user, { name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: {
        200: json("Delegation", "The delegation, endedAt set"),
        401: error("Bad or missing token"),
        403: error("not_your_delegation: the caller neither gave nor holds it"),
        404: error("delegation_not_found"),
      },
    },
  },
};
