import { Hono } from "hono";
import { readConfig, type EdgeEnv } from "../settings";
import { ApiError, decisionError } from "./errors";
import { decisionStatus } from "./status";
import { decodeUtf8, parseBody, readBoundedBytes } from "./body";
import { DecisionSchema, MAX_DECISION_BYTES } from "./schemas";
import { threadOf, threadStub } from "./threads";
import { verifyWebhook, WebhookVerificationError } from "../notify/webhooks";
import type { DecisionOutcome } from "../protocol";
import type { ApproverGroupsInit } from "../approvals/groups";
import { withDelegations } from "../delegations/lookup";

/** How the signing key is derived, for whoever signs by hand (never the key itself). */
const KEY_HINT =
  ': sign with the bytes the base64 after whsec_ in WEBHOOK_SECRET decodes to (not the text itself): v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">, or use `npx toolnexus-edge sign-decision`';

/**
 * POST /v1/decisions — the approvers' webhook, signed per Standard Webhooks. The body is
 * read by hand, not through `bodyLimit` + a validator: the signature covers the exact bytes,
 * so they are read (at most 64 KiB, a stream included), then verified, and only then
 * decoded (strict UTF-8), depth-checked, parsed and validated.
 */
export function decisionRoutes(options: { approverGroups?: ApproverGroupsInit } = {}) {
  return new Hono<{ Bindings: EdgeEnv }>().post("/decisions", async (c) => {
    const { webhookSecrets } = readConfig(c.env);
    const raw = await readBoundedBytes(c, MAX_DECISION_BYTES);
    let webhookId: string;
    try {
      ({ id: webhookId } = await verifyWebhook(webhookSecrets, c.req.raw.headers, raw));
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        throw new ApiError(
          401,
          error.code,
          error.code === "bad_signature" ? `${error.message}${KEY_HINT}` : error.message,
        );
      }
      throw error;
    }
    const body = parseBody(DecisionSchema, decodeUtf8(raw));
    const threadId = threadOf(body.runId);
    if (!threadId) {
      throw new ApiError(404, "run_not_found", `no run ${body.runId}`);
    }
    const outcome: DecisionOutcome = await threadStub(c.env, threadId).decide({
      runId: body.runId,
      requestId: body.requestId,
      decision: body.decision,
      ...(body.data === undefined ? {} : { data: body.data }),
      ...(body.reason === undefined ? {} : { reason: body.reason }),
      ...(body.args === undefined ? {} : { args: body.args }),
      ...(body.argsHash === undefined ? {} : { argsHash: body.argsHash }),
      ...(body.decidedBy === undefined ? {} : { decidedBy: body.decidedBy }),
      channel: "webhook",
      webhookId,
      // Issue 42: whom the named decider stands in for, if anyone (the ledger decides).
      ...(await withDelegations(c.env, body.decidedBy, options.approverGroups)),
    });
    if (outcome.ok) {
      return c.json(
        {
          runId: body.runId,
          requestId: body.requestId,
          duplicate: outcome.duplicate,
          decision: outcome.decision,
          ...(outcome.votes === undefined ? {} : { votes: outcome.votes, needed: outcome.needed }),
        },
        decisionStatus(outcome),
      );
    }
    throw decisionError(outcome);
  });
}
