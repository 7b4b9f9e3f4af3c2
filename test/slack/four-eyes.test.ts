/**
 * Four eyes through Slack (issue 22): the message shows the arguments now up for approval and
 * is updated on every edit, the Approve button carries their version (a click on a message
 * posted before an edit is refused and records nothing), a replayed interaction is never a
 * second vote, and a decline reason is capped like on every channel.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";
import { startPending, until } from "../helpers/durable";
import { resetSlack, slackCalls, slackSignedHeaders } from "../helpers/slack";
import { argsHash } from "../../src/core/approvers/args-hash";

const V1 = argsHash({ orderId: "42", amount: 2000 });
const V2 = argsHash({ orderId: "42", amount: 9000 });

/** One interaction, exactly as Slack would deliver it (and as an attacker would replay it). */
async function delivery(payload: unknown) {
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const headers = await slackSignedHeaders(body);
  return () => SELF.fetch(`${BASE}/slack/interactions`, { method: "POST", headers, body });
}

function approveClick(value: string, user: string) {
  return {
    type: "block_actions",
    user: { id: user, team_id: "T1" },
    team: { id: "T1" },
    channel: { id: "C0123" },
    container: { type: "message", channel_id: "C0123", message_ts: "1.1" },
    actions: [{ action_id: "toolnexus_approve", value }],
  };
}

/** The Approve button's value in the latest message (posted or updated) for the request. */
async function approveValue(requestId: string, amount: number): Promise<string> {
  return until(async () => {
    const calls = [
      ...(await slackCalls("chat.postMessage")),
      ...(await slackCalls("chat.update")),
    ].filter((c) => !c.failed && JSON.stringify(c.params.blocks).includes(requestId));
    const latest = calls.at(-1);
    const blocks = JSON.stringify(latest?.params.blocks ?? []);
    if (!blocks.includes(`\\"amount\\": ${amount}`)) {
      return undefined;
    }
    const list = (latest?.params.blocks ?? []) as Array<{ type: string; elements?: any[] }>;
    const actions = list.find((b) => b.type === "actions");
    return actions?.elements?.[0]?.value as string | undefined;
  }, `a Slack message showing amount ${amount}`);
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

describe("four eyes in Slack", () => {
  beforeEach(resetSlack);

  it("an edit updates the message; the button posted before it is refused; a replay is no second vote", async () => {
    const { runId, request } = await startPending("Please refund $2000 on order 42");
    const firstValue = await approveValue(request.id, 2000);
    expect(JSON.parse(firstValue)).toEqual({ runId, requestId: request.id, argsHash: V1 });

    const annClicks = await delivery(approveClick(firstValue, "U1"));
    expect((await annClicks()).status).toBe(200);
    await until(async () => (await getRun(runId)).requests[0]?.votes.length === 1, "ann's vote");

    // bob edits the amount elsewhere: ann's approval is reset, the message follows the edit.
    const edited = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "bob",
      args: { orderId: "42", amount: 9000 },
    });
    expect(edited.status).toBe(202);
    const secondValue = await approveValue(request.id, 9000);
    expect(JSON.parse(secondValue)).toMatchObject({ argsHash: V2 });

    // ann's click, replayed byte for byte: the same delivery, not a new vote for $9000.
    expect((await annClicks()).status).toBe(200);
    // carol clicks the Approve button of the message as it was before the edit.
    expect((await (await delivery(approveClick(firstValue, "U3")))()).status).toBe(200);
    await ephemeral("U3", /arguments were edited/);
    const pending = await getRun(runId);
    expect(pending.status).toBe("pending");
    expect(pending.requests[0]?.votes.map((v) => [v.decidedBy, v.reset ?? false])).toEqual([
      ["ann", true],
      ["bob", false],
    ]);

    // carol approves what the message now shows: two approvals of $9000.
    expect((await (await delivery(approveClick(secondValue, "U3")))()).status).toBe(200);
    const done = await waitForStatus(runId, ["done"]);
    expect(done.toolCalls.find((c) => c.name === "refund_order")?.args).toEqual({
      orderId: "42",
      amount: 9000,
    });
  });

  it("a decline reason from the modal is capped at 1,000 characters, as on the webhook", async () => {
    const { runId, request } = await startPending("Refund order 7 for $80");
    const submit = await delivery({
      type: "view_submission",
      user: { id: "U1", team_id: "T1" },
      team: { id: "T1" },
      view: {
        callback_id: "toolnexus_decline_reason",
        private_metadata: JSON.stringify({
          runId,
          requestId: request.id,
          channel: "C0123",
          ts: "1.1",
        }),
        state: { values: { reason: { reason_input: { value: "r".repeat(100_000) } } } },
      },
    });
    expect(await (await submit()).json()).toEqual({ response_action: "clear" });
    const done = await waitForStatus(runId, ["done"]);
    const answer = done.decisions[0]?.answer as { reason?: string } | undefined;
    const reason = answer?.reason ?? "";
    expect(reason.length).toBe(1000);
  });

  it("the Undo button revokes through the ledger: with no undo window left it is refused, and the approver is told why (issue 44)", async () => {
    const { runId, request } = await startPending("Please refund $2000 on order 42");
    for (const decidedBy of ["ann", "bob"]) {
      const vote = await signedDecision({
        runId,
        requestId: request.id,
        decision: "approve",
        decidedBy,
        argsHash: V1,
      });
      expect(vote.status).toBe(202);
    }
    await waitForStatus(runId, ["done"]);
    const undo = {
      ...approveClick(JSON.stringify({ runId, requestId: request.id }), "U1"),
      actions: [
        { action_id: "toolnexus_undo", value: JSON.stringify({ runId, requestId: request.id }) },
      ],
    };
    expect((await (await delivery(undo))()).status).toBe(200);
    await ephemeral("U1", /Not recorded: .*undo window/);
    expect((await getRun(runId)).decisions[0]).toMatchObject({ decision: "approve" });
  });
});
