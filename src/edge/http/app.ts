import { Hono } from "hono";
import type { EdgeEnv } from "../settings";
import { configCheck } from "../config-check";
import type { AgentDefinition } from "../agent";
import { ApiError, errorHandler } from "./errors";
import type { ErrorInfo } from "../error-sink";
import type { ApproverGroupsInit } from "../approvals/groups";
import { runRoutes } from "./runs";
import { decisionRoutes } from "./decisions";
import { approvalRoutes } from "../approvals/routes";
import { approvalsRoutes } from "../inbox/api-routes";
import { inboxRoutes } from "../inbox/routes";
import { edgeTimelineRoutes } from "../timeline/edge-routes";
import { slackRoutes } from "../slack/routes";
import { emailRoutes } from "../email/routes";
import { teamsRoutes } from "../teams/routes";
import { servedOpenApiDocument } from "./openapi/document";
import { publicBase } from "../approvals/links";
import { edgeMetrics } from "../metrics";
import { policyMetrics } from "../policy/metrics";
import { policyRoutes } from "../policy/routes";
import { telemetryMetrics } from "../telemetry/index";
import { chatRoutes } from "../protocols/chat/routes";
import { agUiRoutes } from "../protocols/ag-ui/routes";
import { a2aRoutes } from "../protocols/a2a/routes";
import { mcpRoutes } from "../protocols/mcp-server/routes";
import { oauthRoutes } from "../oauth/routes";
import { anyAgentUsesOAuth } from "../oauth/settings";
import { receiptRoutes } from "../receipts/routes";
import { undoRoutes } from "../undo/routes";
import { receiptSources } from "../receipts/sources";
import { batchRoutes } from "../batch/routes";
import { inboxBatchRoutes } from "../batch/inbox-routes";
import { delegationRoutes } from "../delegations/routes";
import { inboxDelegationRoutes } from "../delegations/inbox-routes";

/** The HTTP API of docs/architecture.md §4 and §6. */
export function createApp(
  agents: AgentDefinition[],
  report: (error: unknown, info: ErrorInfo) => void,
  {
    fetch: outbound,
    ...options
  }: { approverGroups?: ApproverGroupsInit; fetch?: typeof fetch } = {},
) {
  const usesOAuth = anyAgentUsesOAuth(agents);
  const checkConfig = configCheck(agents, { ...options, usesOAuth });
  return (
    new Hono<{ Bindings: EdgeEnv }>()
      .use("*", async (c, next) => {
        await checkConfig(c.env); // fail fast, naming what is missing and whose, on every route
        await next();
      })
      .get("/healthz", (c) => c.json({ ok: true }))
      .get("/openapi.json", (c) => c.json(servedOpenApiDocument(publicBase(c))))
      .get("/metrics", (c) =>
        // The OTLP exporter's counters too: a failing collector shows here (docs/observability.md, "Traces and the run timeline").
        c.text(edgeMetrics.render() + telemetryMetrics() + policyMetrics(), 200, {
          "content-type": "text/plain; version=0.0.4; charset=utf-8",
        }),
      )
      .route("/v1", decisionRoutes(options))
      // Before the run API: these answer CORS preflights and take an Access identity, not only the token.
      .route("/v1", chatRoutes({ agents, ...options }))
      .route("/v1", agUiRoutes({ agents, ...options }))
      .route("/v1", batchRoutes(options))
      .route("/v1", delegationRoutes(options))
      .route("/v1", approvalsRoutes(options))
      .route("/v1", undoRoutes())
      .route("/v1", runRoutes(agents, options.approverGroups))
      .route("/v1", policyRoutes())
      .route("/", approvalRoutes())
      .route("/", emailRoutes())
      .route("/", inboxRoutes(options))
      .route("/", inboxBatchRoutes(options))
      .route("/", inboxDelegationRoutes(options))
      .route("/", edgeTimelineRoutes(options))
      .route("/", slackRoutes({ ...options, report }))
      .route("/", teamsRoutes(options))
      .route("/", a2aRoutes(agents, options.approverGroups))
      .route("/", mcpRoutes(agents, options.approverGroups))
      .route("/", oauthRoutes({ enabled: usesOAuth, ...(outbound ? { fetch: outbound } : {}) }))
      .route("/", receiptRoutes(receiptSources))
      .notFound(() => {
        throw new ApiError(404, "not_found", "no such route");
      })
      .onError(errorHandler(report))
  );
}
