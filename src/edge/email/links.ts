/**
 * The personal Approve / Decline links of an approval email: the per-approver link tokens
 * that exist already (approvals/approver-link.ts, valid until the request expires), opened
 * at `/email/:token` — a confirmation page on GET, the decision on POST (email/routes.ts).
 * Both links of one email carry the same token; `?decision=` only preselects the button.
 *
 * Single use: a decision from a link is recorded with the link's id as its delivery id
 * (`webhookId`), and the ledger counts a delivery once for the request's whole life, so the
 * second use of a link finds its first and is refused (email/routes.ts).
 */
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../agent";
import { createApproverToken } from "../approvals/approver-link";

export interface EmailLinkTarget {
  threadId: string;
  runId: string;
  requestId: string;
  /** The member id the links decide as. */
  approver: string;
  /** Epoch ms; null: the default approval timeout from now. */
  expiresAt: number | null;
}

export async function emailLinks(
  { base, webhookSecrets }: { base: string; webhookSecrets: string[] },
  target: EmailLinkTarget,
): Promise<{ approve: string; decline: string }> {
  const { threadId, runId, requestId, approver } = target;
  const exp = Math.floor((target.expiresAt ?? Date.now() + DEFAULT_APPROVAL_TIMEOUT_MS) / 1000);
  const token = await createApproverToken(webhookSecrets, {
    threadId,
    runId,
    requestId,
    approver,
    exp,
  });
  const page = `${base}/email/${token}`;
  return { approve: `${page}?decision=approve`, decline: `${page}?decision=decline` };
}

/** The delivery id a link's decision is recorded under: `email_` + 32 hex of its SHA-256. */
export async function emailLinkId(token: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)),
  );
  return `email_${[...digest.subarray(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
