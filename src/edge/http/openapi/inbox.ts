/** The approvals inbox's part of /openapi.json (src/edge/http/openapi/document.ts spreads it in). */
import { error, html, json, ref } from "./parts";
const query = (
  name: string,
  description: string,
  { schema, required = false }: { schema: Record<string, unknown>; required?: boolean },
) => ({
  name,
  in: "query",
  required,
  description,
  schema,
});

/** The filters and order `GET /v1/approvals` and `GET /inbox` share (issue 42). */
const FILTERS = [
  query("agent", "Only requests of this agent (exact name; 1–200 characters)", {
    schema: { type: "string", minLength: 1, maxLength: 200 },
  }),
  query("tool", "Only requests for this tool (exact name)", {
    schema: { type: "string", minLength: 1, maxLength: 200 },
  }),
  query("requestedBy", "Only requests of runs started for this person (case-insensitive)", {
    schema: { type: "string", minLength: 1, maxLength: 200 },
  }),
  query(
    "q",
    "Text in the prompt, the arguments (JSON) or the user's input: case-insensitive, Unicode-aware (NFKC, full case folding: `strasse` finds `Straße`)",
    { schema: { type: "string", minLength: 1, maxLength: 200 } },
  ),
  query(
    "sort",
    "`expires`: soonest expiry first, none last; `surfaced`: oldest surfaced first. Absent: open oldest surfaced first, decided newest decision first",
    { schema: { type: "string", enum: ["expires", "surfaced"] } },
  ),
];

export const INBOX_PATHS = {
  "/v1/approvals": {
    get: {
      operationId: "listApprovals",
      summary:
        "One approver group's inbox: open requests oldest first, or decided ones newest first, page by page",
      security: [{ bearer: [] }],
      parameters: [
        query("group", "An approver group, or `default` for requests without one", {
          schema: { type: "string" },
          required: true,
        }),
        query("status", "open (default) or decided", {
          schema: { type: "string", enum: ["open", "decided"] },
        }),
        query(
          "cursor",
          "`nextCursor` of the previous page; only with the same group, status, filters and sort (else 400)",
          { schema: { type: "string" } },
        ),
        query("limit", "1–200, default 50", {
          schema: { type: "integer", minimum: 1, maximum: 200 },
        }),
        ...FILTERS,
      ],
      responses: {
        200: {
          ...json("ApprovalsPage", "A page of the inbox; `nextCursor` is null on the last page"),
          headers: {
            "x-rows-read": {
              description:
                "SQLite rows the page cost the inbox (its own rows, never the whole inbox)",
              schema: { type: "integer" },
            },
            "x-count-rows-read": {
              description:
                "SQLite rows the `counts` cost (two without filters; the matching range with them)",
              schema: { type: "integer" },
            },
          },
        },
        400: error(
          "invalid_query: a parameter is missing or malformed, or the cursor belongs to another listing (named in issues)",
        ),
        401: error("Bad or missing token"),
        404: error("group_not_found: no such approver group"),
      },
    },
  },
  "/v1/approvers/links": {
    post: {
      operationId: "createApproverLink",
      summary: "A sign-in link to /inbox for one approver (valid 24 hours)",
      security: [{ bearer: [] }],
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref("ApproverLinkCreate") } },
      },
      responses: {
        201: json("ApproverLink", "The link; opening it sets the inbox session cookie"),
        400: error("Invalid body"),
        401: error("Bad or missing token"),
      },
    },
  },
  "/inbox": {
    get: {
      operationId: "showInbox",
      summary:
        "The signed-in approver's inbox page (HTML, no script): counts per group on top, filters and sort as for GET /v1/approvals",
      // Open to the network: the session cookie (or Cloudflare Access) identifies the approver.
      security: [],
      parameters: FILTERS,
      responses: {
        200: html("The inbox"),
        400: html("A filter or sort is malformed (the page says which)"),
        401: html("Not signed in"),
      },
    },
  },
  "/inbox/dashboard": {
    get: {
      operationId: "showInboxDashboard",
      summary:
        "The picture for signed-in members (HTML with inline SVG charts, no script): pending per group and by age, time to decision p50/p90 per group over 7 and 30 days, decisions per approver, expiries and policy auto-decisions",
      security: [],
      responses: { 200: html("The dashboard"), 401: html("Not signed in") },
    },
  },
  "/inbox/signin/{token}": {
    get: {
      operationId: "signInToInbox",
      summary: "Sign in from an approver link: sets the session cookie, redirects to /inbox",
      security: [],
      parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
      responses: {
        303: { description: "To /inbox" },
        400: html("Invalid or expired link"),
      },
    },
  },
  "/inbox/decide": {
    post: {
      operationId: "decideInInbox",
      summary:
        "Decide from the inbox page (form: csrf, runId, requestId, decision=approve|decline, reason; ≤ 16 KiB)",
      requestBody: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: { type: "object" } } },
      },
      security: [],
      responses: {
        200: html("The outcome and the updated inbox"),
        400: html("Invalid form"),
        401: html("Not signed in"),
        403: html(
          "Missing or wrong CSRF token, or posted from another site (an Origin that is neither this worker's nor in CORS_ORIGINS)",
        ),
        404: html("Not a request in the approver's inboxes"),
        409: html("Not recorded (already decided, no longer pending)"),
        413: html("Form over 16 KiB"),
      },
    },
  },
  "/slack/interactions": {
    post: {
      operationId: "handleSlackInteraction",
      summary:
        "Slack interactivity: Approve / Decline buttons and the decline-reason modal (v0 signature over the raw body)",
      requestBody: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": {
            schema: {
              type: "object",
              properties: { payload: { type: "string", description: "Slack's JSON payload" } },
            },
          },
        },
      },
      // No API credential: Slack's v0 signature over the raw body is checked instead.
      security: [],
      responses: {
        200: {
          description:
            "Handled (Slack's 3-second acknowledgement): an empty body, or for the decline modal `{ response_action }`",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  response_action: { type: "string", enum: ["clear", "errors"] },
                  errors: { type: "object", additionalProperties: { type: "string" } },
                },
              },
            },
          },
        },
        400: error("Not a Slack interaction payload"),
        401: error("Missing, bad or stale Slack signature"),
        404: error("slack_not_configured: SLACK_BOT_TOKEN / SLACK_SIGNING_SECRET unset"),
        413: error("Body over 128 KiB"),
      },
    },
  },
};
