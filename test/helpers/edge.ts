/** Helpers for driving the worker under test through its public HTTP surface. */
import { SELF } from "cloudflare:test";
import { webhookHeaders } from "../../src/edge/notify/webhooks";
import type { RunView } from "../../src/edge/protocol";

export const API_TOKEN = "test-token";
export const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
/** Signs outbound notifications only; vitest.config.ts binds the same value. */
export const NOTIFY_SECRET = "whsec_bm90aWZ5LW9ubHkgdGVzdCBrZXksIG5vdCBmb3IgZGVjaXNpb25z";
export const BASE = "https://edge.test";

export function api(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("authorization")) {
    headers.set("authorization", `Bearer ${API_TOKEN}`);
  }
  if (init.body && !headers.has("content-type")) {
    headers.set("content-type", "application/json");
  }
  return SELF.fetch(`${BASE}${path}`, { ...init, headers });
}

export async function startRun(
  body: Record<string, unknown>,
): Promise<{ runId: string; threadId: string; status: string; links: Record<string, string> }> {
  const response = await api("/v1/runs", { method: "POST", body: JSON.stringify(body) });
  if (response.status !== 202) {
    throw new Error(`start failed: ${response.status} ${await response.text()}`);
  }
  return response.json();
}

export async function getRun(
  runId: string,
  query = "",
): Promise<RunView & { approvalUrl?: string; transcript?: unknown[] }> {
  const response = await api(`/v1/runs/${runId}${query}`);
  if (response.status !== 200) {
    throw new Error(`get failed: ${response.status} ${await response.text()}`);
  }
  return response.json();
}

/** Polls until the run reaches one of `statuses` (queues deliver in about a second). */
export async function waitForStatus(runId: string, statuses: string[], timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  let run = await getRun(runId);
  while (!statuses.includes(run.status)) {
    if (Date.now() > deadline) {
      throw new Error(`run ${runId} stayed ${run.status}, wanted ${statuses.join("|")}`);
    }
    await new Promise((r) => setTimeout(r, 50));
    run = await getRun(runId);
  }
  return run;
}

export async function signedDecision(
  body: unknown,
  options: {
    secret?: string;
    id?: string;
    now?: number;
    raw?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Response> {
  const text = options.raw ?? JSON.stringify(body);
  const headers = await webhookHeaders(options.secret ?? WEBHOOK_SECRET, text, {
    ...(options.id ? { id: options.id } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return SELF.fetch(`${BASE}/v1/decisions`, {
    method: "POST",
    headers: { ...headers, ...options.headers },
    body: text,
  });
}
