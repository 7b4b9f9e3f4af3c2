/** The run timeline's part of /openapi.json (document.ts spreads it in; docs/http-api.md). */
import { error, html, json } from "./parts";

const open: never[] = [];
const runId = { name: "runId", in: "path", required: true, schema: { type: "string" } };
const token = { name: "token", in: "path", required: true, schema: { type: "string" } };
const stream = (description: string) => ({
  description,
  content: { "text/event-stream": { schema: { type: "string" } } },
});

export const TIMELINE_PATHS = {
  "/inbox/runs/{runId}": {
    get: {
      operationId: "showRunTimeline",
      summary:
        "The run's timeline page (HTML) for a signed-in member of a group the run asked (its one inline script, by nonce, follows the run's events)",
      security: open,
      parameters: [runId],
      responses: {
        200: html("The waterfall: model calls, tool calls, requests, votes and decisions"),
        401: html("No inbox session: the sign-in page"),
        404: html("No such run, or none of the member's groups was asked by it (the same page)"),
      },
    },
  },
  "/inbox/runs/{runId}/events": {
    get: {
      operationId: "streamRunTimelineEvents",
      summary:
        "The run's events for its timeline page, with the inbox session (as GET /v1/runs/{runId}/events)",
      security: open,
      parameters: [runId],
      responses: {
        200: stream("The stored events replayed (Last-Event-ID honoured), then live"),
        401: error("unauthorized: no inbox session"),
        404: error("run_not_found: no such run, or not one of the member's groups'"),
      },
    },
  },
  "/v1/runs/{runId}/view-link": {
    post: {
      operationId: "createRunViewLink",
      summary: "A signed link to the run's timeline page, for anyone who holds it (valid 24 hours)",
      security: [{ bearer: [] }],
      parameters: [runId],
      responses: {
        201: {
          ...json("RunViewLink", "The link (Cache-Control: no-store)"),
          headers: {
            "cache-control": { description: "no-store", schema: { type: "string" } },
          },
        },
        401: error("Bad or missing token"),
        404: error("run_not_found"),
      },
    },
  },
  "/runs/view/{token}": {
    get: {
      operationId: "showRunTimelineByLink",
      summary: "The run's timeline page by a signed view link",
      security: open,
      parameters: [token],
      responses: {
        200: html("The waterfall"),
        404: html("The run no longer exists"),
        410: html("The link is tampered with, malformed or expired"),
      },
    },
  },
  "/runs/view/{token}/events": {
    get: {
      operationId: "streamRunTimelineEventsByLink",
      summary: "The run's events for its timeline page, by a signed view link",
      security: open,
      parameters: [token],
      responses: {
        200: stream("The stored events replayed (Last-Event-ID honoured), then live"),
        404: error("run_not_found"),
        410: error("view_link_invalid: tampered with, malformed or expired"),
      },
    },
  },
};
