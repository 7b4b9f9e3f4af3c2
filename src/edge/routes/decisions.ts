import { Hono } from "hono";
import { readConfig, type EdgeEnv } from "../config";
import { ApiError, decisionError } from "../http-errors";
import { decodeUtf8, parseBody, readBoundedBytes } from "../body";
import { DecisionSchema, MAX_DECISION_BYTES } from "../schemas";
import { threadOf, threadStub } from "../threads";
import { verifyWebhook, WebhookVerificationError } from "../webhooks";
import type { DecisionOutcome } from "../protocol";

/**
 * POST /v1/decisions — the approvers' webhook, signed per Standard Webhooks. The body is
 * read by hand, not through `bodyLimit` + a validator: the signature covers the exact bytes,
 * so they are read (at most 64 KiB, a stream included), then verified, and only then
 * decoded (strict UTF-8), depth-checked, parsed and validated.
 */
export function decisionRoutes() {
  return new Hono<{ Bindings: EdgeEnv }>().post("/decisions", async (c) => {
    const { webhookSecrets } = readConfig(c.env);
    const raw = await readBoundedBytes(c, MAX_DECISION_BYTES);
    let webhookId: string;
    try {
      ({ id: webhookId } = await verifyWebhook(webhookSecrets, c.req.raw.headers, raw));
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        throw new ApiError(401, error.code, error.message);
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
        outcome.status,
      );
    }
    throw decisionError(outcome);
  });
}
