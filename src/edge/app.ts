import { Hono } from "hono";
import type { EdgeEnv } from "./config";
import { readConfig } from "./config";
import type { AgentDefinition } from "./agent";
import { ApiError, errorHandler } from "./http-errors";
import type { ErrorInfo } from "./error-sink";
import { approverDirectory, type ApproverGroupsInit } from "./approver-groups";
import { runRoutes } from "./routes/runs";
import { decisionRoutes } from "./routes/decisions";
import { approvalRoutes } from "./routes/approval";
import { approvalsRoutes } from "./routes/approvals";
import { inboxRoutes } from "./routes/inbox";
import { slackRoutes } from "./routes/slack";
import { servedOpenApiDocument } from "./openapi";
import { publicBase } from "./links";
import { edgeMetrics } from "./metrics";
import { readSlackSettings } from "./slack/settings";
import { readAccessSettings } from "./access";
import { inboxNamespace } from "./inbox/rpc";
import { a2aRoutes } from "./protocols/a2a/routes";
import { mcpRoutes } from "./protocols/mcp-server/routes";
import { mcpSessionNamespace } from "./protocols/mcp-server/sessions";

/** The HTTP API of docs/architecture.md §4 and §6. */
export function createApp(
  agents: AgentDefinition[],
  report: (error: unknown, info: ErrorInfo) => void,
  options: { approverGroups?: ApproverGroupsInit } = {},
) {
  return new Hono<{ Bindings: EdgeEnv }>()
    .use("*", async (c, next) => {
      readConfig(c.env); // fail fast, naming the variable, on every route
      readSlackSettings(c.env);
      readAccessSettings(c.env);
      inboxNamespace(c.env);
      mcpSessionNamespace(c.env);
      approverDirectory(c.env, options.approverGroups);
      await next();
    })
    .get("/healthz", (c) => c.json({ ok: true }))
    .get("/openapi.json", (c) => c.json(servedOpenApiDocument(publicBase(c))))
    .get("/metrics", (c) =>
      c.text(edgeMetrics.render(), 200, {
        "content-type": "text/plain; version=0.0.4; charset=utf-8",
      }),
    )
    .route("/v1", decisionRoutes())
    .route("/v1", approvalsRoutes(options))
    .route("/v1", runRoutes(agents, options.approverGroups))
    .route("/", approvalRoutes())
    .route("/", inboxRoutes(options))
    .route("/", slackRoutes({ ...options, report }))
    .route("/", a2aRoutes(agents, options.approverGroups))
    .route("/", mcpRoutes())
    .notFound(() => {
      throw new ApiError(404, "not_found", "no such route");
    })
    .onError(errorHandler(report));
}
