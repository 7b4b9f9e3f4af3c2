/**
 * /openapi.json, generated from the zod schemas that validate the requests
 * (src/edge/http/schemas.ts), so the document and the code cannot disagree.
 */
import { ArgsChangedSchema } from "./args-changed";
import * as z from "zod";
import {
  AgentToolSchema,
  AgentsSchema,
  ApprovalDescriptionSchema,
  DecisionAcceptedSchema,
  DecisionRecordSchema,
  LinksSchema,
  RunStatusSchema,
  DecisionSchema,
  ErrorSchema,
  RunAcceptedSchema,
  RunCreateSchema,
  RunLinkCreateSchema,
  RunLinkSchema,
  RunViewSchema,
  VoteSchema,
  ApprovalStateSchema,
  TreeHandleSchema,
} from "../schemas";
import {
  ApprovalsCountsSchema,
  ApprovalsPageSchema,
  ApproverLinkCreateSchema,
  ApproverLinkSchema,
  InboxItemSchema,
} from "../../inbox/schemas";
import { INBOX_PATHS } from "./inbox";
import { RECEIPT_PATHS } from "../../receipts/openapi";
import { POLICY_PATHS } from "../../policy/openapi";
import { APPROVAL_PAGE_PATHS } from "./approval-page";
import { EMAIL_PAGE_PATHS } from "./email-page";
import { TEAMS_PATHS } from "./teams";
import { TIMELINE_PATHS } from "./timeline";
import { RunViewLinkSchema } from "../../timeline/schemas";
import { OAUTH_PATHS } from "../../oauth/openapi";
import { PROTOCOL_PATHS } from "../../protocols/openapi/chat";
import { AGENT_PROTOCOL_PATHS } from "../../protocols/openapi/agents";
import { error, json, ref } from "./parts";
import { NotificationSchema } from "./notification";
import { EVENTS } from "./events";
import { TOOL_CALL_PATHS, ToolCallRecordSchema } from "./tool-calls";
import { BATCH_PATHS, BATCH_SCHEMAS } from "../../batch/openapi";
import { DELEGATION_PATHS, DELEGATION_SCHEMAS } from "../../delegations/openapi";
import { CompensationSchema, UNDO_PATHS, UndoAcceptedSchema, UndoSchema } from "./undo";
import { UndoCreateSchema } from "../../undo/routes";

// Every schema with a `meta({ id })` that others share must be listed, or zod inlines it under `__shared`.
const SCHEMAS = {
  RunCreateSchema,
  RunLinkCreateSchema,
  RunLinkSchema,
  DecisionSchema,
  ErrorSchema,
  RunAcceptedSchema,
  RunViewSchema,
  DecisionAcceptedSchema,
  DecisionRecordSchema,
  LinksSchema,
  RunStatusSchema,
  AgentsSchema,
  AgentToolSchema,
  ApprovalDescriptionSchema,
  NotificationSchema,
  ApprovalsPageSchema,
  ApprovalsCountsSchema,
  InboxItemSchema,
  ApproverLinkCreateSchema,
  ApproverLinkSchema,
  VoteSchema,
  ApprovalStateSchema,
  ArgsChangedSchema,
  TreeHandleSchema,
  UndoCreateSchema,
  UndoSchema,
  UndoAcceptedSchema,
  CompensationSchema,
  RunViewLinkSchema,
  ToolCallRecordSchema,
  ...BATCH_SCHEMAS, // issue 42
  ...DELEGATION_SCHEMAS,
};

function components() {
  const registry = z.registry<{ id: string }>();
  for (const schema of Object.values(SCHEMAS)) {
    const id = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
    if (id) {
      registry.add(schema, { id });
    }
  }
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: "any",
  });
  // OpenAPI components are named by their key; a `$id` with a fragment is not valid JSON Schema.
  for (const schema of Object.values(schemas)) {
    delete (schema as { $schema?: string }).$schema;
    delete (schema as { $id?: string }).$id;
  }
  return schemas;
}

const bearer = [{ bearer: [] }];
/** Open routes say so: no credential (the page and inbox routes check their own tokens and cookies). */
const open: never[] = [];
const runId = { name: "runId", in: "path", required: true, schema: { type: "string" } };

let cached: unknown;

function openApiDocument(): unknown {
  cached ??= {
    openapi: "3.1.0",
    info: {
      title: "toolnexus-edge",
      version: "0.1.0",
      description:
        "Agent runs that suspend for human approval and resume durably. Errors are JSON `{ error: { code, message, issues? } }`.",
    },
    components: {
      schemas: components(),
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "API_TOKEN" },
        notifySignature: {
          type: "apiKey",
          in: "header",
          name: "webhook-signature",
          description:
            "Standard Webhooks, as on decisions, but signed with NOTIFY_SECRET: receivers verify notifications with it",
        },
        standardWebhooks: {
          type: "apiKey",
          in: "header",
          name: "webhook-signature",
          description:
            "Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature (v1,<base64 HMAC-SHA256 of id.timestamp.body>) with WEBHOOK_SECRET",
        },
      },
    },
    paths: {
      "/v1/agents": {
        get: {
          operationId: "listAgents",
          summary: "List agents",
          security: bearer,
          responses: {
            200: json(
              "Agents",
              "Agents with their tools: each tool's input JSON Schema and the static parts of its approval rules",
            ),
            401: error("Bad or missing token"),
          },
        },
      },
      "/v1/runs": {
        post: {
          operationId: "startRun",
          summary: "Start a run",
          security: bearer,
          requestBody: {
            required: true,
            content: { "application/json": { schema: ref("RunCreate") } },
          },
          responses: {
            202: json("RunAccepted", "Started; follow links.events"),
            400: error(
              "invalid_json; invalid_body (schema, not UTF-8, nested deeper than 64 levels, metadata over 64 KiB); invalid_callback_url (the message names the reason: not https, credentials, private/loopback/link-local/CGNAT/reserved address, odd IPv4 spelling, local-only name — unless CALLBACK_ALLOW lists it); unknown_agent; agent_has_no_model (no LLM_* configured and no demoModel)",
            ),
            401: error("Bad or missing token"),
            409: error("thread_busy: the thread has an active run"),
            413: error("body_too_large: over 256 KiB, declared or streamed"),
            415: error("unsupported_media_type: the body must be application/json"),
            500: error(
              "config_error naming the variable or binding (e.g. a callbackUrl while NOTIFY_SECRET is not configured), or internal_error",
            ),
          },
          callbacks: {
            runPending: {
              "{$request.body#/callbackUrl}": {
                post: {
                  operationId: "notifyRunPending",
                  summary:
                    "A run is waiting for a decision (Standard Webhooks, signed with NOTIFY_SECRET — not the decisions key; retried with backoff)",
                  security: [{ notifySignature: [] }],
                  requestBody: { content: { "application/json": { schema: ref("Notification") } } },
                  responses: {
                    200: { description: "Any 2xx acknowledges" },
                    "4XX": {
                      description:
                        "Any other answer (or none within the timeout) is retried with backoff, then dead-lettered after 5 deliveries",
                    },
                  },
                },
              },
            },
          },
        },
      },
      "/v1/runs/{runId}": {
        get: {
          operationId: "getRun",
          summary: "Get a run (status, pending request, text, usage, tool calls, decisions)",
          security: bearer,
          parameters: [runId, { name: "transcript", in: "query", schema: { type: "boolean" } }],
          responses: {
            200: json("Run", "The run"),
            401: error("Bad or missing token"),
            404: error("Unknown run"),
          },
        },
      },
      "/v1/runs/{runId}/events": {
        get: {
          operationId: "streamRunEvents",
          summary: "Stream a run's events",
          security: bearer,
          parameters: [runId, { name: "Last-Event-ID", in: "header", schema: { type: "string" } }],
          responses: {
            200: {
              description: EVENTS,
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
            401: error("Bad or missing token"),
            404: error("Unknown run"),
          },
        },
      },
      ...TOOL_CALL_PATHS,
      ...UNDO_PATHS,
      "/v1/runs/{runId}/cancel": {
        post: {
          operationId: "cancelRun",
          summary: "Cancel a run (a decision recorded earlier still applies to its call)",
          security: bearer,
          parameters: [runId],
          responses: {
            200: json("Run", "Cancelled"),
            401: error("Bad or missing token"),
            404: error("Unknown run"),
            409: error("Run already finished"),
          },
        },
      },
      "/v1/runs/{runId}/links": {
        post: {
          operationId: "createRunLink",
          summary:
            "A personal approval-page link for one approver of one pending request (valid until the request expires)",
          security: bearer,
          parameters: [runId],
          requestBody: {
            required: true,
            content: { "application/json": { schema: ref("RunLinkCreate") } },
          },
          responses: {
            201: json("RunLink", "The link: the page decides as this approver"),
            400: error("invalid_json; invalid_body"),
            401: error("Bad or missing token"),
            403: error("not_an_approver or own_request: this approver may not decide the request"),
            404: error("Unknown run or request"),
            409: error("request_not_pending: already decided, expired or cancelled"),
          },
        },
      },
      "/v1/decisions": {
        post: {
          operationId: "recordDecision",
          summary:
            "Record an approver's decision (Standard Webhooks signature). Order of checks: signature 401 → body 400 → unknown run/request 404 → no longer pending or expired 409 → not an approver / own request 403 → arguments changed 409 → edited args 400. A vote is bound to the version of the arguments it was cast on (`argsHash`); a webhook-id is remembered for the request's lifetime, so a replay is always the identical repeat (200)",
          security: [{ standardWebhooks: [] }],
          requestBody: {
            required: true,
            content: { "application/json": { schema: ref("Decision") } },
          },
          responses: {
            202: json("DecisionAccepted", "Recorded; the run resumes through the queue"),
            200: json("DecisionAccepted", "Identical repeat; nothing changed"),
            400: error(
              "invalid_json; invalid_body (schema, not UTF-8, nested deeper than 64 levels); invalid_data (data that does not fit the request's schema); member_required (approver rules need decidedBy); not_editable, invalid_args, edit_refused (edited args). Checked only after the signature",
            ),
            403: error(
              "not_an_approver (not in the rules' group, anyOf or escalation group) or own_request (the run's requestedBy); the attempt is kept as refused",
            ),
            401: error(
              "Missing, bad or stale signature (checked over the raw bytes, before decoding)",
            ),
            404: error("Unknown run or request"),
            409: {
              description:
                "request_not_pending (also a request a newer deploy superseded to ask other approvers: the message names the request asked instead), request_expired (also before the expiry alarm has run), request_not_decidable (a remote_task wait, answered by its remote A2A task), already_decided, conflicting_decision (this member voted otherwise), agent_changed (the current agent version declines the request: it is declined with that reason, recorded on channel version, and the run goes on; this approval is not recorded); or args_changed: the approval's argsHash is not the current arguments' version (or is missing once they were edited) — the body then carries the current `args` and `argsHash`, and nothing was recorded",
              content: {
                "application/json": {
                  schema: { oneOf: [ref("Error"), ref("ArgsChanged")] },
                },
              },
            },
            413: error("body_too_large: over 64 KiB, declared or streamed"),
          },
        },
      },
      ...APPROVAL_PAGE_PATHS,
      ...EMAIL_PAGE_PATHS,
      ...OAUTH_PATHS,
      ...INBOX_PATHS,
      ...BATCH_PATHS,
      ...DELEGATION_PATHS,
      ...TEAMS_PATHS,
      ...TIMELINE_PATHS,
      ...RECEIPT_PATHS,
      ...POLICY_PATHS,
      ...PROTOCOL_PATHS,
      ...AGENT_PROTOCOL_PATHS,
      "/metrics": {
        get: {
          operationId: "getMetrics",
          summary: "Prometheus metrics of this isolate",
          security: open,
          responses: {
            200: {
              description: "Prometheus text exposition",
              content: {
                "text/plain; version=0.0.4; charset=utf-8": { schema: { type: "string" } },
              },
            },
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "getOpenApiDocument",
          summary: "This document (its `servers` entry is the base this worker is reached at)",
          security: open,
          responses: {
            200: {
              description: "OpenAPI 3.1",
              content: { "application/json": { schema: { type: "object" } } },
            },
          },
        },
      },
      "/healthz": {
        get: {
          operationId: "getHealth",
          summary: "Liveness",
          security: open,
          responses: {
            200: {
              description: "ok",
              content: {
                "application/json": {
                  schema: { type: "object", properties: { ok: { const: true } }, required: ["ok"] },
                },
              },
            },
          },
        },
      },
    },
  };
  return withServerErrors(cached);
}

/**
 * Every route can answer 500: a configuration problem (`config_error`, naming the variable
 * or binding) fails every request before its handler, and anything unexpected is an
 * `internal_error`. Added where a route does not describe its own 500.
 */
function withServerErrors(document: unknown): unknown {
  const paths = (
    document as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }
  ).paths;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      operation.responses[500] ??= error(
        "config_error naming the misconfigured variable or binding, or internal_error",
      );
    }
  }
  return document;
}

/** The document as served: with a `servers` entry for the base the worker is reached at. */
export function servedOpenApiDocument(base: string): Record<string, unknown> {
  return {
    ...(openApiDocument() as Record<string, unknown>),
    servers: [{ url: base, description: "this worker (PUBLIC_URL, else the request's origin)" }],
  };
}
