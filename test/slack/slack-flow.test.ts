// Approvals in Slack end to end, against a fake Slack Web API inside the pool: a request
// of a group with `slack.channel` is posted through the notify queue, a member approves or
// declines (with a reason, in a modal), outsiders get an ephemeral refusal, forged or
// replayed interactions change nothing, and the message follows every outcome.
import { beforeEach, describe, expect, it } from "vitest";
import { env, SELF } from "cloudflare:test";
import { api, BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";
import { startPending, until } from "../helpers/durable";
import {
  failSlack,
  resetSlack,
  slackCalls,
  slackSignature,
  type SlackCall,
} from "../helpers/slack";

async function interact(
  payload: unknown,
  opts: { timestamp?: number; secret?: string; tamper?: boolean } = {},
): Promise<Response> {
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = await slackSignature(body, timestamp, opts.secret);
  return SELF.fetch(`${BASE}/slack/interactions`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": signature,
    },
    body: opts.tamper ? body.replace("U", "X") : body,
  });
}

function button(
  action: "toolnexus_approve" | "toolnexus_decline",
  target: { runId: string; requestId: string },
  user: string,
  ts: string,
) {
  return {
    type: "block_actions",
    user: { id: user, team_id: "T1" },
    team: { id: "T1" },
    trigger_id: `trigger-${user}`,
    channel: { id: "C0123" },
    container: { type: "message", channel_id: "C0123", message_ts: ts },
    actions: [{ action_id: action, value: JSON.stringify(target) }],
  };
}

function modal(
  target: { runId: string; requestId: string },
  user: string,
  reason: string,
  ts: string,
) {
  return {
    type: "view_submission",
    user: { id: user, team_id: "T1" },
    team: { id: "T1" },
    view: {
      callback_id: "toolnexus_decline_reason",
      private_metadata: JSON.stringify({ ...target, channel: "C0123", ts }),
      state: { values: { reason: { reason_input: { value: reason } } } },
    },
  };
}

async function postedFor(requestId: string, runId: string, timeoutMs = 10_000): Promise<SlackCall> {
  return until(
    async () => {
      const calls = await slackCalls("chat.postMessage");
      return calls.find((c) => {
        const blocks = JSON.stringify(c.params.blocks);
        return !c.failed && blocks.includes(runId) && blocks.includes(requestId);
      });
    },
    `the Slack message for ${requestId}`,
    timeoutMs,
  );
}

async function updatedTo(text: RegExp): Promise<SlackCall> {
  return until(async () => {
    const calls = await slackCalls("chat.update");
    return calls.reverse().find((c) => text.test(JSON.stringify(c.params.blocks)));
  }, `a chat.update matching ${text}`);
}

describe("Slack approvals", () => {
  beforeEach(resetSlack);

  it("posts the request, refuses an outsider, asks a decliner for a reason, and shows the outcome", async () => {
    const { runId, request } = await startPending("Refund order 7 for $80");
    const target = { runId, requestId: request.id };
    const posted = await postedFor(request.id, runId);
    expect(posted.params).toMatchObject({ channel: "C0123" });
    expect(posted.authorization).toBe("Bearer xoxb-test");
    const json = JSON.stringify(posted.params.blocks);
    expect(json).toContain("refund_order");
    expect(json).toContain("toolnexus_approve");
    const ts = "1700000001.000100"; // the fake's ts; the flow does not depend on its value

    // An outsider: nothing recorded, an ephemeral refusal.
    expect((await interact(button("toolnexus_approve", target, "U9", ts))).status).toBe(200);
    await until(
      async () =>
        (await slackCalls("chat.postEphemeral")).find(
          (c) => c.params.user === "U9" && /not an approver/.test(c.params.text),
        ),
      "the ephemeral refusal",
    );
    expect((await getRun(runId)).status).toBe("pending");

    // Forged (wrong secret, tampered body) or stale: 401, nothing changes.
    expect(
      (await interact(button("toolnexus_approve", target, "U1", ts), { secret: "nope" })).status,
    ).toBe(401);
    expect(
      (await interact(button("toolnexus_approve", target, "U1", ts), { tamper: true })).status,
    ).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 301;
    expect(
      (await interact(button("toolnexus_approve", target, "U1", ts), { timestamp: stale })).status,
    ).toBe(401);
    expect((await getRun(runId)).decisions).toEqual([]);

    // Decline opens the reason modal; the decision waits for its submission.
    expect((await interact(button("toolnexus_decline", target, "U1", ts))).status).toBe(200);
    const [open] = await slackCalls("views.open");
    expect(open?.params.trigger_id).toBe("trigger-U1");
    expect(open?.params.view.callback_id).toBe("toolnexus_decline_reason");
    expect((await getRun(runId)).status).toBe("pending");

    const submitted = await interact(modal(target, "U1", "already refunded", ts));
    expect(await submitted.json()).toEqual({ response_action: "clear" });
    const run = await waitForStatus(runId, ["done"]);
    expect(run.decisions).toHaveLength(1);
    expect(run.decisions[0]).toMatchObject({
      decision: "decline",
      channel: "slack",
      decidedBy: "ann",
      answer: { ok: false, reason: "already refunded" },
    });
    const updated = await updatedTo(/Declined\* by ann via slack: already refunded/);
    expect(updated.params.channel).toBe("C0123");
    expect(JSON.stringify(updated.params.blocks)).not.toContain("toolnexus_approve");

    // A replay of the same submission changes nothing.
    const replay = await interact(modal(target, "U1", "already refunded", ts));
    expect(await replay.json()).toEqual({ response_action: "clear" });
    expect((await getRun(runId)).decisions).toHaveLength(1);
    // Another member's later vote is refused inside the modal.
    const late = await interact(modal(target, "U2", "me too", ts));
    expect(await late.json()).toMatchObject({ response_action: "errors" });
  });

  it("approves from the button; a request decided elsewhere or cancelled is updated too", async () => {
    const approved = await startPending("Refund order 42, $80");
    await postedFor(approved.request.id, approved.runId);
    const target = { runId: approved.runId, requestId: approved.request.id };
    expect((await interact(button("toolnexus_approve", target, "U2", "1.1"))).status).toBe(200);
    expect((await waitForStatus(approved.runId, ["done"])).decisions[0]).toMatchObject({
      decision: "approve",
      channel: "slack",
      decidedBy: "bob",
    });
    await updatedTo(/Approved\* by bob via slack/);

    const elsewhere = await startPending("Refund order 7 for $80");
    await postedFor(elsewhere.request.id, elsewhere.runId);
    await signedDecision({
      runId: elsewhere.runId,
      requestId: elsewhere.request.id,
      decision: "decline",
      reason: "handled by phone",
      decidedBy: "ann@example.com",
    });
    // The member behind the identity is recorded, as with rules: ann, not her email.
    await updatedTo(/Declined\* by ann via webhook: handled by phone/);

    const cancelled = await startPending("Refund order 7 for $80");
    await postedFor(cancelled.request.id, cancelled.runId);
    expect((await api(`/v1/runs/${cancelled.runId}/cancel`, { method: "POST" })).status).toBe(200);
    await updatedTo(/Cancelled\*.*run cancelled/);
  });

  it("a reminder is a reply in the message's thread, broadcast to the channel", async () => {
    const { runId, threadId, request } = await startPending("Refund order 9 for $90");
    await postedFor(request.id, runId);
    // What the request's reminder timer sends (the rules' remindEvery).
    await env.NOTIFY_QUEUE.send({
      threadId,
      runId,
      requestId: request.id,
      slack: { group: "default", reminder: 2 },
    });
    const reply = await until(
      async () =>
        (await slackCalls("chat.postMessage")).find(
          (c) => c.params.thread_ts && /^Reminder 2: still waiting/.test(c.params.text),
        ),
      "the reminder reply",
    );
    expect(reply.params).toMatchObject({ channel: "C0123", reply_broadcast: "true" });
    expect(reply.params.thread_ts).toMatch(/^\d+\.\d+$/);
  });

  it("a Slack outage is retried through the notify queue", async () => {
    await failSlack("chat.postMessage", 1);
    const { runId, request } = await startPending("Refund order 7 for $80");
    await until(
      async () => (await slackCalls("chat.postMessage")).some((c) => c.failed),
      "the failed post",
    );
    await postedFor(request.id, runId, 30_000); // after the queue's backoff (5 s)
    expect(
      (await slackCalls("chat.postMessage")).filter(
        (c) => !c.failed && JSON.stringify(c.params.blocks).includes(request.id),
      ),
    ).toHaveLength(1);
  }, 40_000);
});
