// Approvals in Microsoft Teams end to end (issue 45), against a fake Bot Framework and Bot
// Connector on 127.0.0.1: a group with a Teams conversation gets an Adaptive Card per request;
// a forged, expired or wrong-audience token is 401 and records nothing; a member decides from
// the card (identified by their UPN, or their AAD object id), a stranger is refused and
// recorded; the card is replaced in place after every vote, from Teams or from Slack.
import { beforeEach, describe, expect, it } from "vitest";
import { generateKeyPair } from "jose";
import { BASE, getRun, waitForStatus } from "../helpers/edge";
import { eventsOf, startPending, until } from "../helpers/durable";
import { receiptsOf } from "../helpers/receipts";
import { slackSignedHeaders } from "../helpers/slack";
import { SELF } from "cloudflare:test";
import {
  botToken,
  buttonData,
  buttonPress,
  cardText,
  CONVERSATION,
  postActivity,
  resetTeams,
  teamsCalls,
  type TeamsCall,
} from "../helpers/teams";

const ANN = { id: "29:ann", aadObjectId: "aad-ann" };
const BOB = { id: "29:bob", aadObjectId: "aad-bob" };
const MALLORY = { id: "29:mallory", aadObjectId: "aad-mallory" };

/** The card posted for a request (the Bot Connector POST whose card names it). */
async function postedCard(requestId: string): Promise<TeamsCall> {
  return until(async () => {
    const calls = await teamsCalls();
    return calls.find(
      (c) =>
        c.method === "POST" &&
        c.url.endsWith(`/v3/conversations/${encodeURIComponent(CONVERSATION)}/activities`) &&
        JSON.stringify(c.body).includes(requestId),
    );
  }, `the Teams card for ${requestId}`);
}

/** A PUT replacing the card that matches `text`. */
async function cardUpdated(activityId: string, text: RegExp): Promise<TeamsCall> {
  return until(async () => {
    const calls = await teamsCalls();
    return calls
      .filter((c) => c.method === "PUT" && c.url.endsWith(`/activities/${activityId}`))
      .find((c) => text.test(cardText(c.body)));
  }, `the card ${activityId} updated to ${text}`);
}

describe("Teams approvals", () => {
  beforeEach(resetTeams);

  it("refuses forged, expired and wrong-audience tokens with 401, recording nothing", async () => {
    const { runId, request } = await startPending("Refund order 7 for $80");
    const card = await postedCard(request.id);
    expect(card.authorization).toBe("Bearer bot-token");
    const press = buttonPress(buttonData(card.body, "Approve"), ANN);
    const other = await generateKeyPair("RS256");
    const now = Math.floor(Date.now() / 1000);
    for (const token of [
      null,
      "not-a-jwt",
      await botToken({ key: other.privateKey }), // forged: another key under our kid
      await botToken({ expiresAt: now - 3600 }), // expired
      await botToken({ audience: "someone-else" }), // another bot's token
      await botToken({ issuer: "https://evil.example" }),
      await botToken({ serviceUrl: "https://evil.example/" }), // issued for another serviceUrl
    ]) {
      const response = await postActivity(press, token);
      expect(response.status, String(token)).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
        "unauthorized",
      );
    }
    const run = await getRun(runId);
    expect(run.status).toBe("pending");
    expect(run.decisions).toEqual([]);
  });

  it("fetches the OpenID metadata and signing keys once, and acknowledges other activities", async () => {
    for (let i = 0; i < 3; i += 1) {
      const response = await postActivity(
        { type: "conversationUpdate", id: `a-${i}`, serviceUrl: "http://127.0.0.1:9/teams/" },
        await botToken(),
      );
      expect(response.status).toBe(200);
    }
    const fetched = (await teamsCalls()).map((c) => new URL(c.url).pathname);
    // At most once per isolate (none when an earlier test of this file fetched them already).
    expect(fetched.filter((path) => path === "/openid").length).toBeLessThanOrEqual(1);
    expect(fetched.filter((path) => path === "/keys").length).toBeLessThanOrEqual(1);
  });

  it("a member approves from the card (known by their UPN) and the card shows the outcome in place", async () => {
    const { runId, request } = await startPending("Refund order 8 for $85");
    const card = await postedCard(request.id);
    expect(card.body.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(cardText(card.body)).toContain("Refund $85 on order 8?");
    const press = buttonPress(buttonData(card.body, "Approve"), ANN);
    const response = await postActivity(press, await botToken());
    expect(response.status).toBe(200);
    const run = await waitForStatus(runId, ["done"]);
    expect(run.decisions[0]).toMatchObject({
      decision: "approve",
      channel: "teams",
      decidedBy: "ann",
    });
    expect((await receiptsOf(runId)).map((r) => r.channel)).toEqual(["teams"]);
    expect((await eventsOf(runId)).find((e) => e.type === "resumed")?.data).toMatchObject({
      channel: "teams",
    });
    // The same activity again (a retry by Teams): an identical repeat.
    expect((await postActivity(press, await botToken())).status).toBe(200);
    expect((await getRun(runId)).decisions).toHaveLength(1);
    // Replaced in place: a PUT to the posted card's own activity id, without buttons now.
    const updated = await cardUpdated(card.answeredId!, /Approved by ann via teams/);
    expect(updated.authorization).toBe("Bearer bot-token");
    expect(updated.body.attachments[0].content.actions).toBeUndefined();
  });

  it("a stranger's press is refused (403) and recorded with channel teams", async () => {
    const { runId, request } = await startPending("Please refund $2000 on order 42");
    const card = await postedCard(request.id);
    const response = await postActivity(
      buttonPress(buttonData(card.body, "Approve"), MALLORY),
      await botToken(),
    );
    expect(response.status).toBe(403);
    const state = (await getRun(runId)).requests.find(
      (r: { requestId: string }) => r.requestId === request.id,
    );
    expect(state?.votes).toEqual([]);
    expect(state?.refused).toEqual([
      expect.objectContaining({
        decidedBy: "mallory@example.com",
        channel: "teams",
        code: "not_an_approver",
      }),
    ]);
  });

  it("the card is updated after a Slack vote, and a Teams vote by AAD object id completes four eyes", async () => {
    const { runId, request } = await startPending("Please refund $5000 on order 43");
    const card = await postedCard(request.id);
    expect(cardText(card.body)).toContain("Votes: 0 of 2 approvals");
    // ann approves in Slack.
    const payload = {
      type: "block_actions",
      user: { id: "U1", team_id: "T1" },
      team: { id: "T1" },
      trigger_id: "trigger-U1",
      channel: { id: "C0123" },
      container: { type: "message", channel_id: "C0123", message_ts: "1700000001.000100" },
      actions: [
        {
          action_id: "toolnexus_approve",
          value: JSON.stringify({
            runId,
            requestId: request.id,
            argsHash: buttonData(card.body, "Approve").argsHash,
          }),
        },
      ],
    };
    const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const slack = await SELF.fetch(`${BASE}/slack/interactions`, {
      method: "POST",
      headers: await slackSignedHeaders(body),
      body,
    });
    expect(slack.status).toBe(200);
    const activityId = card.answeredId!;
    const afterSlack = await cardUpdated(activityId, /Votes: 1 of 2 approvals \(ann via slack\)/);
    // The card still has its buttons, with the same version of the arguments.
    expect(buttonData(afterSlack.body, "Approve").argsHash).toBe(
      buttonData(card.body, "Approve").argsHash,
    );

    // bob, known to the directory by his AAD object id, approves from the card.
    const press = buttonPress(buttonData(afterSlack.body, "Approve"), BOB);
    expect((await postActivity(press, await botToken())).status).toBe(200);
    const run = await waitForStatus(runId, ["done"]);
    expect(run.decisions[0]).toMatchObject({ channel: "teams", decidedBy: "bob" });
    await cardUpdated(activityId, /Approved by bob via teams/);
  });
});
