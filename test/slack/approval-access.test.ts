// Cloudflare Access on the approval page (docs/architecture.md §6 "Identity"): a verified
// Cf-Access-Jwt-Assertion says who is deciding, so the anonymous link of a request with
// approver rules becomes usable by a member; a token that does not verify is nobody.
import { describe, expect, it } from "vitest";
import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import { getRun, waitForStatus } from "../helpers/edge";
import { sqlIn, startPending, until } from "../helpers/durable";
import { slackCalls } from "../helpers/slack";
import { accessJwt } from "../helpers/access";

const post = (url: string, jwt: string) =>
  SELF.fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "cf-access-jwt-assertion": jwt,
    },
    body: "decision=approve",
  });

describe("Cloudflare Access on the approval page", { timeout: 30_000 }, () => {
  it("decides as the member a valid JWT names; an invalid one leaves the page read-only", async () => {
    // delete_account's rules name support-leads (ann and bob in this project's groups).
    const { runId, request } = await startPending("Please delete my account");
    expect(request.data?.approvers).toMatchObject({ group: "support-leads" });
    const { approvalUrl } = await getRun(runId);

    const forged = await accessJwt({ email: "ann@example.com" }, { audience: "aud-nope" });
    const readOnly = await SELF.fetch(approvalUrl!, {
      headers: { "cf-access-jwt-assertion": forged },
    });
    expect(await readOnly.text()).toContain('id="read-only"');
    expect((await post(approvalUrl!, forged)).status).toBe(403);

    const outsider = await accessJwt({ email: "eve@example.com" });
    const refused = await post(approvalUrl!, outsider);
    expect(refused.status).toBe(403);

    const ann = await accessJwt({ email: "Ann@Example.com" });
    const page = await SELF.fetch(approvalUrl!, { headers: { "cf-access-jwt-assertion": ann } });
    expect(await page.text()).toContain("Deciding as <strong>Ann@Example.com</strong>");
    expect((await post(approvalUrl!, ann)).status).toBe(200);
    const done = await waitForStatus(runId, ["done"]);
    expect(done.decisions[0]).toMatchObject({ channel: "page", decidedBy: "ann" });
    expect(done.requests[0]?.refused).toMatchObject([
      { decidedBy: "eve@example.com", channel: "page", code: "not_an_approver" },
    ]);
  });
});

describe("reminders reach Slack", { timeout: 30_000 }, () => {
  it("the object's reminder timer replies in the request's Slack thread", async () => {
    const { runId, threadId, request, stub } = await startPending("Please delete my account");
    await until(
      async () =>
        (await slackCalls("chat.postMessage")).find((c) =>
          JSON.stringify(c.params).includes(request.id),
        ),
      "the request's Slack message",
    );
    await sqlIn(
      threadId,
      "UPDATE approvals SET next_remind_at = ? WHERE request_id = ?",
      Date.now() - 1,
      request.id,
    );
    await runDurableObjectAlarm(stub);
    const reply = await until(
      async () =>
        (await slackCalls("chat.postMessage")).find(
          (c) => c.params.thread_ts && /^Reminder 1: still waiting/.test(String(c.params.text)),
        ),
      "the reminder reply",
    );
    expect(reply.params.text).toContain("Delete this account?");
    expect((await getRun(runId)).requests[0]?.reminders).toBe(1);
  });
});
