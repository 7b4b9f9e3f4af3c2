/**
 * Delegation reaches Slack (issue 42 item 4): a member standing in for a finance approver may
 * click Approve on a finance request's message though they are in no finance group; the vote
 * counts for the person they stand in for, and without the delegation the click is refused.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { api, BASE, getRun, waitForStatus } from "../helpers/edge";
import { startPending, until } from "../helpers/durable";
import { resetSlack, slackCalls, slackSignedHeaders } from "../helpers/slack";

async function click(value: string, user: string): Promise<number> {
  const payload = {
    type: "block_actions",
    user: { id: user, team_id: "T1" },
    team: { id: "T1" },
    channel: { id: "C0123" },
    container: { type: "message", channel_id: "C0123", message_ts: "1.1" },
    actions: [{ action_id: "toolnexus_approve", value }],
  };
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const headers = await slackSignedHeaders(body);
  return (await SELF.fetch(`${BASE}/slack/interactions`, { method: "POST", headers, body })).status;
}

async function approveValue(requestId: string): Promise<string> {
  return until(async () => {
    const posted = (await slackCalls("chat.postMessage")).filter(
      (c) => !c.failed && JSON.stringify(c.params.blocks).includes(requestId),
    );
    const blocks = (posted.at(-1)?.params.blocks ?? []) as Array<{
      type: string;
      elements?: any[];
    }>;
    return blocks.find((b) => b.type === "actions")?.elements?.[0]?.value as string | undefined;
  }, `the Slack message of ${requestId}`);
}

async function ephemeral(user: string, text: RegExp) {
  return until(
    async () =>
      (await slackCalls("chat.postEphemeral")).find(
        (c) => c.params.user === user && text.test(c.params.text),
      ),
    `an ephemeral message for ${user} matching ${text}`,
  );
}

describe("a delegate in Slack", () => {
  beforeEach(resetSlack);

  it("is refused without a delegation, and with one their click counts for the member they stand in for", async () => {
    const { runId, request } = await startPending("Please refund $2000 on order 42");
    const value = await approveValue(request.id);

    expect(await click(value, "U9")).toBe(200);
    await ephemeral("U9", /not an approver/);
    expect((await getRun(runId)).requests[0]?.votes ?? []).toEqual([]);

    const delegation = await api("/v1/approvers/delegations", {
      method: "POST",
      headers: { "x-toolnexus-user": "carol" },
      body: JSON.stringify({
        from: "carol",
        to: "max@example.com",
        until: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    });
    expect(delegation.status).toBe(201);

    expect(await click(value, "U1")).toBe(200); // ann, a finance member
    await until(async () => (await getRun(runId)).requests[0]?.votes.length === 1, "ann's vote");
    expect(await click(value, "U9")).toBe(200); // max, standing in for carol
    const done = await waitForStatus(runId, ["done"]);
    expect(done.requests[0]?.votes.map((v) => [v.decidedBy, v.onBehalfOf ?? null])).toEqual([
      ["ann", null],
      ["max@example.com", "carol"],
    ]);
  });
});
