/**
 * Issue 30 point 5 for Slack: rotating WEBHOOK_SECRET (the new key first, the old one kept)
 * keeps every Slack button working, and so does dropping the old key. A button carries only the
 * request's ids and its arguments' version, and Slack's interaction is verified with
 * SLACK_SIGNING_SECRET: nothing in it is derived from WEBHOOK_SECRET, unlike an approval link,
 * which stops working once the key that signed it is dropped (shown here side by side).
 *
 * The messages are posted by the worker as configured (the old secret alone); each press is
 * handled by the worker with WEBHOOK_SECRET rotated, or with the old key dropped, as a deploy
 * with the new secret would handle it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/worker";
import { BASE, getRun, waitForStatus, WEBHOOK_SECRET } from "../helpers/edge";
import { startPending, until } from "../helpers/durable";
import { resetSlack, slackCalls, slackSignedHeaders } from "../helpers/slack";

const NEW_SECRET = `whsec_${btoa("the rotated-in webhook secret, test only")}`;
const ROTATED = `${NEW_SECRET} ${WEBHOOK_SECRET}`;

/** The worker with WEBHOOK_SECRET set to `secret`, everything else as configured. */
async function underSecret(secret: string, request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch!(
    request as never,
    { ...env, WEBHOOK_SECRET: secret } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

/** ann (U1, a member of `default`) presses Approve on the message posted for the request. */
async function pressApprove(requestId: string, secret: string): Promise<Response> {
  const posted = await until(async () => {
    const calls = await slackCalls("chat.postMessage");
    return calls.find((c) => !c.failed && JSON.stringify(c.params.blocks).includes(requestId));
  }, `the Slack message for ${requestId}`);
  const blocks = posted.params.blocks as Array<{ type: string; elements?: Array<any> }>;
  const approve = blocks
    .find((b) => b.type === "actions")
    ?.elements?.find((e) => e.action_id === "toolnexus_approve");
  expect(approve?.value).toBeTypeOf("string");
  const payload = {
    type: "block_actions",
    user: { id: "U1", team_id: "T1" },
    team: { id: "T1" },
    channel: { id: "C0123" },
    container: { type: "message", channel_id: "C0123", message_ts: "1.1" },
    actions: [{ action_id: "toolnexus_approve", value: approve?.value }],
  };
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return underSecret(
    secret,
    new Request(`${BASE}/slack/interactions`, {
      method: "POST",
      headers: await slackSignedHeaders(body),
      body,
    }),
  );
}

/** The approval link GET /v1/runs/:id minted under the old secret, opened under `secret`. */
async function openLink(approvalUrl: string, secret: string): Promise<number> {
  return (await underSecret(secret, new Request(approvalUrl))).status;
}

describe("WEBHOOK_SECRET rotated: Slack buttons", () => {
  beforeEach(resetSlack);

  it("a message posted under the old secret decides its request after the rotation, and after the old key is dropped", async () => {
    const rotated = await startPending("Refund order 7 for $80");
    const dropped = await startPending("Refund order 8 for $90");
    const link = (await getRun(dropped.runId)).approvalUrl ?? "";
    expect(link).toMatch(/\/approve\//);

    // New key first, old one kept: the button decides; the old link still opens.
    expect(await openLink(link, ROTATED)).toBe(200);
    expect((await pressApprove(rotated.request.id, ROTATED)).status).toBe(200);
    const first = await waitForStatus(rotated.runId, ["done", "failed"]);
    expect(first).toMatchObject({ status: "done", text: "Done: Refunded $80 on order 7" });
    expect(first.decisions[0]).toMatchObject({ channel: "slack", decidedBy: "ann" });

    // The old key dropped: the link it signed is refused, the button still decides.
    expect(await openLink(link, NEW_SECRET)).toBe(400);
    expect((await pressApprove(dropped.request.id, NEW_SECRET)).status).toBe(200);
    const second = await waitForStatus(dropped.runId, ["done", "failed"]);
    expect(second).toMatchObject({ status: "done", text: "Done: Refunded $90 on order 8" });
    expect(second.decisions[0]).toMatchObject({ channel: "slack", decidedBy: "ann" });
  });
});
