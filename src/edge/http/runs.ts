import { Hono } from "hono";
import { agentVersion } from "../versions/agent-version";
import { receiptStub } from "../receipts/rpc";
import { statusOf } from "./status";
import type * as z from "zod";
import type { EdgeEnv } from "../settings";
import { readConfig } from "../settings";
import type { AgentDefinition } from "../agent";
import { agentTools, describeTool } from "../agent";
import { bearerAuth } from "./auth";
import { ApiError } from "./errors";
import { zValidator } from "@hono/zod-validator";
import { invalidBody, limitBody, strictJson } from "./body";
import {
  type AgentsSchema,
  MAX_RUN_BODY_BYTES,
  RunCreateSchema,
  RunLinkCreateSchema,
} from "./schemas";
import { createApproverToken } from "../approvals/approver-link";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../agent";
import { threadOf, threadStub } from "./threads";
import { approvalUrl, publicBase, runLinks } from "../approvals/links";
import { NO_STORE } from "./headers";
import type { ApproverCheck, CancelOutcome, RunView } from "../protocol";
import type { ApproverGroupsInit } from "../approvals/groups";
import { startAgentRun } from "./start-run";
import { isRemoteTaskRequest } from "../../core/a2a/remote-task";
import { unpack } from "../packed";

type Bindings = { Bindings: EdgeEnv };

function stubForRun(env: EdgeEnv, runId: string) {
  const threadId = threadOf(runId);
  if (!threadId) {
    throw new ApiError(404, "run_not_found", `no run ${runId}`);
  }
  return { threadId, stub: threadStub(env, threadId) };
}

/** The run API (Bearer API_TOKEN): agents, start, get, events, cancel. */
export function runRoutes(agents: AgentDefinition[], approverGroups?: ApproverGroupsInit) {
  return new Hono<Bindings>()
    .use("*", bearerAuth())
    .get("/agents", async (c) => {
      const env = c.env;
      // Counted by the receipts store from what the threads send it: no thread is read here.
      const pending = await receiptStub(env).pendingByVersion();
      const list = await Promise.all(
        agents.map(async (a) => {
          const tools = await agentTools(a, env);
          return {
            name: a.name,
            description: a.description,
            version: await agentVersion(a, env),
            pendingByVersion: (Object.hasOwn(pending, a.name) && pending[a.name]) || {},
            tools: tools.map((t) => t.name),
            toolDetails: tools.map(describeTool),
          };
        }),
      );
      return c.json({ agents: list } satisfies z.input<typeof AgentsSchema>);
    })
    .post(
      "/runs",
      limitBody(MAX_RUN_BODY_BYTES),
      strictJson(),
      zValidator("json", RunCreateSchema, invalidBody),
      async (c) => {
        const body = c.req.valid("json");
        const agent = agents.find((a) => a.name === body.agent);
        if (!agent) {
          throw new ApiError(400, "unknown_agent", {
            message: `no agent named ${JSON.stringify(body.agent)}; see GET /v1/agents`,
            issues: [{ path: "agent", message: "unknown agent" }],
          });
        }
        const base = publicBase(c);
        const outcome = await startAgentRun(c.env, approverGroups, {
          agent,
          input: body.input,
          ...(body.threadId ? { threadId: body.threadId } : {}),
          ...(body.callbackUrl ? { callbackUrl: body.callbackUrl } : {}),
          ...(body.metadata ? { metadata: body.metadata } : {}),
          ...(body.requestedBy ? { requestedBy: body.requestedBy } : {}),
          publicUrl: base,
        });
        if (!outcome.ok) {
          throw new ApiError(outcome.code === "thread_busy" ? 409 : 400, outcome.code, {
            message: outcome.message,
            issues: outcome.path
              ? [{ path: outcome.path, message: outcome.reason ?? outcome.message }]
              : undefined,
          });
        }
        const { runId, threadId } = outcome;
        return c.json(
          { runId, threadId, status: outcome.run.status, links: runLinks(base, runId) },
          202,
        );
      },
    )
    .get("/runs/:runId", async (c) => {
      const runId = c.req.param("runId");
      const { threadId, stub } = stubForRun(c.env, runId);
      const view: RunView | undefined = await unpack(
        await stub.getRun(runId, {
          transcript: ["1", "true"].includes(c.req.query("transcript") ?? ""),
        }),
      );
      if (!view) {
        throw new ApiError(404, "run_not_found", `no run ${runId}`);
      }
      const base = publicBase(c);
      // A remote_task wait is nobody's to decide: no approval link for it.
      const link =
        view.pending && !isRemoteTaskRequest(view.pending)
          ? {
              approvalUrl: await approvalUrl(
                { base, webhookSecrets: readConfig(c.env).webhookSecrets },
                { threadId, runId },
                {
                  request: view.pending,
                  expiresAt: view.expiresAt ? Date.parse(view.expiresAt) : null,
                },
              ),
            }
          : {};
      // An approval link is a bearer credential: no cache keeps a response that holds one.
      return c.json(
        { ...view, links: runLinks(base, runId), ...link },
        200,
        link.approvalUrl ? NO_STORE : {},
      );
    })
    .get("/runs/:runId/events", async (c) => {
      const runId = c.req.param("runId");
      const { stub } = stubForRun(c.env, runId);
      const url = new URL("https://thread/events");
      url.searchParams.set("runId", runId);
      const after = c.req.header("last-event-id") ?? c.req.query("after");
      return stub.fetch(url.toString(), {
        headers: after ? { "last-event-id": after } : {},
        signal: c.req.raw.signal,
      });
    })
    .get("/runs/:runId/tool-calls/:callId/output", async (c) => {
      // The whole output, which the model may have been sent only part of (maxToolOutputBytes).
      const runId = c.req.param("runId");
      const { stub } = stubForRun(c.env, runId);
      const url = new URL("https://thread/tool-call-output");
      url.searchParams.set("runId", runId);
      url.searchParams.set("callId", c.req.param("callId"));
      return stub.fetch(url.toString());
    })
    .post(
      "/runs/:runId/links",
      limitBody(4096),
      strictJson(),
      zValidator("json", RunLinkCreateSchema, invalidBody),
      async (c) => {
        const runId = c.req.param("runId");
        const { threadId, stub } = stubForRun(c.env, runId);
        const body = c.req.valid("json");
        const checked: ApproverCheck = await stub.checkApprover(
          runId,
          body.requestId,
          body.approver,
        );
        if (!checked.ok) {
          throw new ApiError(statusOf(checked.code), checked.code, checked.message);
        }
        // Valid until the request expires: a personal link is worth nothing after that.
        const expiresAt = checked.expiresAt ?? Date.now() + DEFAULT_APPROVAL_TIMEOUT_MS;
        const token = await createApproverToken(readConfig(c.env).webhookSecrets, {
          threadId,
          runId,
          requestId: body.requestId,
          approver: checked.member,
          exp: Math.floor(expiresAt / 1000),
        });
        return c.json(
          {
            url: `${publicBase(c)}/approve/${token}`,
            expiresAt: new Date(expiresAt).toISOString(),
          },
          201,
          NO_STORE,
        );
      },
    )
    .post("/runs/:runId/cancel", async (c) => {
      const runId = c.req.param("runId");
      const { stub } = stubForRun(c.env, runId);
      const outcome: CancelOutcome = await stub.cancel(runId);
      if (!outcome.ok) {
        throw new ApiError(
          outcome.code === "run_not_found" ? 404 : 409,
          outcome.code,
          outcome.message,
        );
      }
      return c.json({ ...outcome.run, links: runLinks(publicBase(c), runId) });
    });
}
