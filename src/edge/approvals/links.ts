import type { Context } from "hono";
import { readConfig, type EdgeEnv } from "../settings";
import { createApprovalToken, digestArgs } from "./approval-token";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../agent";
import type { Request as AgentRequest } from "../../core/types";

/** Base of the links we hand out: PUBLIC_URL, else the origin the request came to. */
export function publicBase(c: Context<{ Bindings: EdgeEnv }>): string {
  return readConfig(c.env).publicUrl ?? new URL(c.req.url).origin;
}

export function runLinks(base: string, runId: string) {
  const self = `${base}/v1/runs/${encodeURIComponent(runId)}`;
  return { self, events: `${self}/events`, cancel: `${self}/cancel` };
}

/** What the approval token binds: the arguments the approver is shown. */
export function approvalSubject(request: AgentRequest): unknown {
  return request.data?.args ?? request.data ?? null;
}

/** A signed, expiring link to the approval page of one request. */
export async function approvalUrl(
  { base, webhookSecrets }: { base: string; webhookSecrets: string[] },
  ids: { threadId: string; runId: string },
  { request, expiresAt }: { request: AgentRequest; expiresAt: number | null },
): Promise<string> {
  const exp = Math.floor((expiresAt ?? Date.now() + DEFAULT_APPROVAL_TIMEOUT_MS) / 1000);
  const token = await createApprovalToken(webhookSecrets, {
    threadId: ids.threadId,
    runId: ids.runId,
    requestId: request.id,
    argsDigest: await digestArgs(approvalSubject(request)),
    exp,
  });
  return `${base}/approve/${token}`;
}
