/**
 * Issue 37, item 2, in Slack: a click is a vote, never an edit. The Approve button's value names
 * the request and the version of its arguments only; a value that also carries `args` or
 * `data.args` (a crafted interaction, signed) decides the request as shown and nothing else.
 * Slack passes no caller data to the ledger, so this held before the fix too: the test documents it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { BASE, waitForStatus } from "../helpers/edge";
import { startPending } from "../helpers/durable";
import { resetSlack, slackSignedHeaders } from "../helpers/slack";
import { argsHash } from "../../src/core/approvers/args-hash";

describe("Slack: a click never changes the arguments", () => {
  beforeEach(resetSlack);

  it("an Approve value carrying args and data.args approves the $80 asked for", async () => {
    const { runId, request } = await startPending("Refund order 7 for $80");
    const smuggled = { orderId: "7", amount: 50_000 };
    const value = JSON.stringify({
      runId,
      requestId: request.id,
      argsHash: argsHash({ orderId: "7", amount: 80 }),
      args: smuggled,
      data: { args: smuggled },
    });
    const payload = {
      type: "block_actions",
      user: { id: "U1", team_id: "T1" },
      team: { id: "T1" },
      channel: { id: "C0123" },
      container: { type: "message", channel_id: "C0123", message_ts: "1.1" },
      actions: [{ action_id: "toolnexus_approve", value }],
    };
    const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const headers = await slackSignedHeaders(body);
    const response = await SELF.fetch(`${BASE}/slack/interactions`, {
      method: "POST",
      headers,
      body,
    });
    expect(response.status).toBe(200);
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toContain("Refunded $80 on order 7");
    expect(done.toolCalls.find((c) => c.name === "refund_order")?.args).toEqual({
      orderId: "7",
      amount: 80,
    });
  });
});
