// Slack under the workers pool: the v0 signature with Slack's own worked example, and
// the Web API client (slack-web-api-client) against a fake Slack (the project's outbound network).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { SlackVerificationError, verifySlackSignature } from "../../src/edge/slack/verify";
import { slackApi } from "../../src/edge/slack/api";
import type { SlackEnv } from "../../src/edge/settings/slack";
import { approvalMessage } from "../../src/edge/slack/blocks";
import { resetSlack, slackCalls, failSlack } from "../helpers/slack";
import { settings } from "../../src/edge/settings";

// "Verifying requests from Slack" (api.slack.com/authentication/verifying-requests-from-slack).
const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const TIMESTAMP = 1531420618;
const BODY =
  "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
const SIGNATURE = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";

const headers = (signature = SIGNATURE, timestamp = String(TIMESTAMP)) =>
  new Headers({ "x-slack-request-timestamp": timestamp, "x-slack-signature": signature });

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SlackVerificationError);
    return (error as SlackVerificationError).code;
  }
  throw new Error("expected a rejection");
}

describe("Slack request signatures (worked example, controlled clock)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(TIMESTAMP * 1000);
  });
  afterEach(() => vi.useRealTimers());

  it("accepts the example, and any one of several secrets", async () => {
    expect(await verifySlackSignature([SECRET], headers(), BODY)).toBe(TIMESTAMP);
    expect(await verifySlackSignature(["0ld-secret", SECRET], headers(), BODY)).toBe(TIMESTAMP);
  });

  it("rejects a changed body, another secret, a flipped digit or a malformed header", async () => {
    expect(
      await rejection(verifySlackSignature([SECRET], headers(), BODY.replace("text=", "text=x"))),
    ).toBe("bad_signature");
    expect(await rejection(verifySlackSignature(["another"], headers(), BODY))).toBe(
      "bad_signature",
    );
    const flipped = `${SIGNATURE.slice(0, -1)}${SIGNATURE.endsWith("3") ? "4" : "3"}`;
    expect(await rejection(verifySlackSignature([SECRET], headers(flipped), BODY))).toBe(
      "bad_signature",
    );
    // "v1=" with the right hex must still fail (slack-edge's check would strip any three characters).
    expect(
      await rejection(
        verifySlackSignature([SECRET], headers(SIGNATURE.replace("v0=", "v1=")), BODY),
      ),
    ).toBe("bad_signature");
    expect(
      await rejection(verifySlackSignature([SECRET], headers(SIGNATURE.toUpperCase()), BODY)),
    ).toBe("bad_signature");
    expect(await rejection(verifySlackSignature([SECRET], new Headers(), BODY))).toBe(
      "missing_headers",
    );
    expect(
      await rejection(verifySlackSignature([SECRET], headers(SIGNATURE, `${TIMESTAMP}abc`), BODY)),
    ).toBe("missing_headers");
  });

  it("enforces ±5 minutes in both directions", async () => {
    vi.setSystemTime((TIMESTAMP + 300) * 1000);
    expect(await verifySlackSignature([SECRET], headers(), BODY)).toBe(TIMESTAMP);
    vi.setSystemTime((TIMESTAMP + 301) * 1000);
    expect(await rejection(verifySlackSignature([SECRET], headers(), BODY))).toBe(
      "stale_timestamp",
    );
    vi.setSystemTime((TIMESTAMP - 300) * 1000);
    expect(await verifySlackSignature([SECRET], headers(), BODY)).toBe(TIMESTAMP);
    vi.setSystemTime((TIMESTAMP - 301) * 1000);
    expect(await rejection(verifySlackSignature([SECRET], headers(), BODY))).toBe(
      "stale_timestamp",
    );
  });
});

describe("Slack settings", () => {
  it("is off with no variables, and needs the token and the signing secret together", () => {
    expect(settings({}).slack).toBeUndefined();
    expect(() => settings({ SLACK_BOT_TOKEN: "xoxb-1" }).slack).toThrow(/SLACK_SIGNING_SECRET/);
    expect(() => settings({ SLACK_SIGNING_SECRET: "s" }).slack).toThrow(/SLACK_BOT_TOKEN/);
    expect(
      () =>
        settings({ SLACK_BOT_TOKEN: "x", SLACK_SIGNING_SECRET: "s", SLACK_API_URL: "nope" }).slack,
    ).toThrow(/SLACK_API_URL/);
    expect(settings({ SLACK_BOT_TOKEN: "x", SLACK_SIGNING_SECRET: "a b" }).slack).toEqual({
      botToken: "x",
      signingSecrets: ["a", "b"],
      apiUrl: "https://slack.com/api/",
    });
  });
});

describe("the Slack Web API calls against the fake Slack API", () => {
  beforeEach(resetSlack);
  const slack = () => settings(env as SlackEnv).slack!;
  const message = approvalMessage(
    {
      runId: "th_1.run_1",
      requestId: "apr_1",
      agent: "support",
      prompt: "Refund $120?",
      tool: "refund_order",
      args: { amount: 120 },
    },
    { status: "open" },
  );

  it("posts with the bot token to SLACK_API_URL and returns the message's ts", async () => {
    const posted = await slackApi(slack()).post("C0123", message);
    expect(posted).toEqual({ channel: "C0123", ts: expect.stringMatching(/^\d+\.\d+$/) });
    const [call] = await slackCalls();
    expect(call).toMatchObject({
      method: "chat.postMessage",
      authorization: "Bearer xoxb-test",
      params: { channel: "C0123", text: message.text, blocks: message.blocks },
    });
  });

  it("updates, opens a modal and posts an ephemeral message", async () => {
    const api = slackApi(slack());
    await api.update("C0123", "1.2", message);
    await api.openModal("trigger-1", {
      type: "modal",
      title: { type: "plain_text", text: "t" },
      blocks: [],
    });
    await api.ephemeral("C0123", "U2", "you are not an approver");
    expect(
      (await slackCalls()).map((c) => [
        c.method,
        c.params.ts ?? c.params.trigger_id ?? c.params.user,
      ]),
    ).toEqual([
      ["chat.update", "1.2"],
      ["views.open", "trigger-1"],
      ["chat.postEphemeral", "U2"],
    ]);
  });

  it("throws on an HTTP failure and on ok:false, without retrying inline (the queue retries)", async () => {
    await failSlack("chat.postMessage", 1);
    await expect(slackApi(slack()).post("C0123", message)).rejects.toThrow();
    await failSlack("chat.postMessage", 1, "channel_not_found");
    await expect(slackApi(slack()).post("C0123", message)).rejects.toThrow(/channel_not_found/);
    expect((await slackCalls()).filter((c) => c.failed)).toHaveLength(2);
  });

  it("a rate limit names Slack's Retry-After; a reply that is not JSON is an error too", async () => {
    const limited = async () => new Response("", { status: 429, headers: { "retry-after": "30" } });
    await expect(slackApi(slack(), limited).update("C0123", "1.0", message)).rejects.toThrow(
      "Slack chat.update failed: HTTP 429 (retry after 30 s)",
    );
    const html = async () => new Response("<html>gateway</html>", { status: 200 });
    await expect(slackApi(slack(), html).ephemeral("C0123", "U1", "hi")).rejects.toThrow(
      "Slack chat.postEphemeral failed: unknown_error",
    );
  });
});
