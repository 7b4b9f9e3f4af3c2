/**
 * Outbound notifications: when a run suspends, POST the request, the decision URL
 * and a signed approval link to the run's callbackUrl, signed per Standard Webhooks with
 * NOTIFY_SECRET — never with WEBHOOK_SECRET, so a receiver cannot forge decisions. The webhook id is stable per run and request, so receivers can deduplicate retries.
 */
import type { NotificationSource } from "../protocol";
import { type EdgeConfig, notifySigningSecret } from "../settings";
import { webhookHeaders } from "./webhooks";
import { approvalUrl } from "../approvals/links";
import type { Request as AgentRequest } from "../../core/types";
import { rulesOf } from "../../core/approvers/rules";

/** Default bound of one delivery (connect, send, response headers). */
export const NOTIFY_TIMEOUT_MS = 10_000;
/**
 * Sends of one notification before it is dead-lettered and recorded on the run: the first
 * plus `max_retries` (4 in wrangler.toml; test/scripts checks they agree).
 */
export const NOTIFY_MAX_DELIVERIES = 5;

/** The body POSTed to callbackUrl (documented as `Notification` in /openapi.json). */
export interface Notification {
  /** The first notification, a reminder (`remindEvery`), or the escalation (`escalate`). */
  type: "run.pending" | "run.reminder" | "run.escalated" | "request.expiring";
  runId: string;
  threadId: string;
  agent: string;
  request: AgentRequest;
  decisionUrl: string;
  /** An anonymous approval link: only for requests without approver rules. */
  approvalUrl?: string;
  /** For a request with rules: where to ask for a per-approver link (Bearer). */
  linksUrl?: string;
  expiresAt: string | null;
  metadata: unknown;
  requestedBy: string | null;
  /** With rules: approvals that count now and how many are needed. */
  votes?: number;
  needed?: number;
  /** `run.reminder`: which reminder (1, 2, …). */
  reminder?: number;
  /** `run.escalated`: the group that may now decide too. */
  escalatedTo?: string;
}

export async function buildNotification(
  source: NotificationSource,
  config: EdgeConfig,
  kind: { reminder?: number; escalated?: boolean; expiring?: boolean } = {},
): Promise<Notification> {
  const base = config.publicUrl ?? source.run.publicUrl;
  const { runId, threadId } = source.run;
  const rules = rulesOf(source.request);
  return {
    type: notificationType(kind),
    runId,
    threadId,
    agent: source.run.agent,
    request: source.request,
    decisionUrl: `${base}/v1/decisions`,
    ...(rules
      ? { linksUrl: `${base}/v1/runs/${encodeURIComponent(runId)}/links` }
      : {
          approvalUrl: await approvalUrl(
            { base, webhookSecrets: config.webhookSecrets },
            { threadId, runId },
            { request: source.request, expiresAt: source.expiresAt },
          ),
        }),
    expiresAt: source.expiresAt === null ? null : new Date(source.expiresAt).toISOString(),
    metadata: source.run.metadata,
    requestedBy: source.run.requestedBy ?? null,
    ...(source.votes ? source.votes : {}),
    ...(kind.reminder ? { reminder: kind.reminder } : {}),
    ...(kind.escalated && rules?.escalate ? { escalatedTo: rules.escalate.to } : {}),
  };
}

/**
 * Stable per (run, request) — the same across retries, so receivers can deduplicate —
 * and distinct across runs, whose request ids may repeat (they derive from call ids).
 * Reminders add `_r<n>`, the escalation `_esc`.
 */
export function notificationId(
  notification: Pick<Notification, "runId"> & { request: Pick<AgentRequest, "id"> } & Partial<
      Pick<Notification, "type" | "reminder">
    >,
): string {
  const base = `msg_${notification.runId.slice(notification.runId.indexOf(".") + 1)}_${notification.request.id}`;
  if (notification.type === "run.escalated") {
    return `${base}_esc`;
  }
  if (notification.type === "request.expiring") {
    return `${base}_warn`; // issue 42: the one warning before expiry
  }
  return notification.type === "run.reminder" ? `${base}_r${notification.reminder}` : base;
}

/** Which notification a queue message asks for (`expiring`: issue 42's `warnBefore`). */
export function notificationType(kind: {
  reminder?: number;
  escalated?: boolean;
  expiring?: boolean;
}): Notification["type"] {
  if (kind.expiring) {
    return "request.expiring";
  }
  return kind.escalated ? "run.escalated" : kind.reminder ? "run.reminder" : "run.pending";
}

export type DeliveryResult = { ok: true; status: number } | { ok: false; reason: string };

export async function deliver(
  url: string,
  notification: Notification,
  options: {
    config: EdgeConfig;
    fetch?: typeof fetch | undefined;
    timeoutMs?: number | undefined;
  },
): Promise<DeliveryResult> {
  const { config } = options;
  const body = JSON.stringify(notification);
  const headers = await webhookHeaders(notifySigningSecret(config), body, {
    id: notificationId(notification),
  });
  const timeoutMs = options.timeoutMs ?? NOTIFY_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const fetcher = options.fetch ?? fetch;
  try {
    // Raced with the signal too, so even a fetch that ignores it cannot hold the batch.
    const response = await Promise.race([
      fetcher(url, { method: "POST", headers, body, signal, redirect: "manual" }),
      rejectOnAbort(signal, `no response within ${timeoutMs} ms`),
    ]);
    await response.body?.cancel();
    return response.ok
      ? { ok: true, status: response.status }
      : { ok: false, reason: `HTTP ${response.status}` };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

function rejectOnAbort(signal: AbortSignal, message: string): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener("abort", () => reject(new Error(message)), { once: true });
  });
}

/** Exponential backoff for redelivery, in whole seconds as Queues want them: 5, 10, 20, … capped at 5 min. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(5 * 2 ** Math.max(0, attempts - 1), 300);
}
