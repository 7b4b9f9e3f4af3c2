/**
 * A small client of the run API and the decisions webhook, for scripts and tests
 * that drive a running dev server from outside (plain fetch, nothing from src/).
 */
import { webhookHeaders } from "./webhooks.mjs";

const TERMINAL = new Set(["done", "incomplete", "failed", "cancelled", "compensated"]);

export class ApiError extends Error {
  constructor(method, path, status, body) {
    super(
      `${method} ${path} → ${status}: ${typeof body === "string" ? body : JSON.stringify(body)}`,
    );
    this.status = status;
    this.body = body;
  }
}

/** @param {{ baseUrl: string, apiToken: string, webhookSecret: string }} options */
export function createClient({ baseUrl, apiToken, webhookSecret }) {
  const base = baseUrl.replace(/\/+$/, "");

  async function call(method, path, { body, headers = {}, expect } = {}) {
    const text =
      body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(text === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: text,
      signal: AbortSignal.timeout(15_000),
    });
    const raw = await response.text();
    let json;
    try {
      json = JSON.parse(raw);
    } catch {
      json = raw;
    }
    if (expect ? !expect.includes(response.status) : !response.ok) {
      throw new ApiError(method, path, response.status, json);
    }
    return { status: response.status, body: json };
  }
  const auth = { authorization: `Bearer ${apiToken}` };

  return {
    baseUrl: base,
    health: () => call("GET", "/healthz"),
    agents: (opts = {}) => call("GET", "/v1/agents", { headers: auth, ...opts }),
    /** POST /v1/runs → `{ status, body: { runId, threadId, status, links } }` */
    startRun: (body, opts = {}) => call("POST", "/v1/runs", { body, headers: auth, ...opts }),
    getRun: async (runId, query = "") =>
      (await call("GET", `/v1/runs/${encodeURIComponent(runId)}${query}`, { headers: auth })).body,
    /** POST /v1/approvers/links → `{ url, expiresAt }`: a sign-in link to /inbox for one approver. */
    approverLink: async (approver) =>
      (await call("POST", "/v1/approvers/links", { body: { approver }, headers: auth })).body,
    /** GET /v1/approvals → `{ items, nextCursor }`: one group's inbox. */
    approvals: async (group, { status = "open", limit = 50, cursor } = {}) => {
      const query = new URLSearchParams({ group, status, limit: String(limit) });
      if (cursor) {
        query.set("cursor", cursor);
      }
      return (await call("GET", `/v1/approvals?${query}`, { headers: auth })).body;
    },
    /** POST /v1/runs/:id/undo as `user` → `{ status, body: { runId, status, undo } }` (docs/undo.md). */
    undo: (runId, { reason, user }, opts = {}) =>
      call("POST", `/v1/runs/${encodeURIComponent(runId)}/undo`, {
        body: { reason },
        headers: { ...auth, "x-toolnexus-user": user },
        ...opts,
      }),
    /** POST /v1/decisions, signed per Standard Webhooks with the first secret. */
    decide: (decision, opts = {}) => {
      const body = JSON.stringify(decision);
      return call("POST", "/v1/decisions", {
        body,
        headers: webhookHeaders(webhookSecret, body),
        ...opts,
      });
    },
    /** Polls GET /v1/runs/:id until `until(run)` holds; rejects after `timeoutMs` with the last status. */
    async waitFor(runId, until, { timeoutMs = 20_000, intervalMs = 200 } = {}) {
      const deadline = Date.now() + timeoutMs;
      let run;
      for (;;) {
        run = await this.getRun(runId);
        if (until(run)) {
          return run;
        }
        if (TERMINAL.has(run.status) || Date.now() > deadline) {
          throw new Error(
            `run ${runId} is ${run.status}${run.error ? ` (${run.error.code}: ${run.error.message})` : ""}; gave up waiting after ${((Date.now() - deadline + timeoutMs) / 1000).toFixed(1)}s`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    },
  };
}

export const isPending = (run) => run.status === "pending" && run.pending !== null;
export const isFinished = (run) => TERMINAL.has(run.status);
