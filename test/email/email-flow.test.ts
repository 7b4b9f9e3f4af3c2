// Approval emails end to end (issue 45): each member of a request's group gets one email with
// a text and an HTML part and personal links; a prefetched link decides nothing; the
// confirmation form (with its CSRF token) decides through the ledger as channel `email`; a
// link decides once; a non-member decides nothing; reminders come as emails of their own.
import { beforeEach, describe, expect, it } from "vitest";
import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import { BASE, getRun, signedDecision, waitForStatus, WEBHOOK_SECRET } from "../helpers/edge";
import { eventsOf, sqlIn, startPending, until } from "../helpers/durable";
import { receiptsOf } from "../helpers/receipts";
import { failMail, mailFor, resetMail } from "../helpers/email";
import { createApproverToken } from "../../src/edge/approvals/approver-link";

/** The emails about `requestId`, once there are `count` of them. */
async function emailsFor(requestId: string, count: number) {
  return until(async () => {
    const mails = await mailFor(requestId);
    return mails.length >= count ? mails : undefined;
  }, `${count} emails for ${requestId}`);
}

/** Opens a link as a browser would (GET) and returns the page and its form's fields. */
async function openLink(url: string) {
  const response = await SELF.fetch(url);
  const html = await response.text();
  const field = (name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replaceAll("&quot;", '"');
  return { status: response.status, html, csrf: field("csrf"), argsHash: field("argsHash") };
}

async function confirm(url: string, form: Record<string, string>) {
  const response = await SELF.fetch(url.replace(/\?.*$/, ""), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: response.status, html: await response.text() };
}

describe("approval emails", () => {
  beforeEach(resetMail);

  it("sends each member one email (text and HTML); a prefetched link decides nothing; the confirmation does", async () => {
    const { runId, request } = await startPending("Refund order 7 for $80");
    const mails = await emailsFor(request.id, 2);
    // ann and bob (his email identity, which compares case-insensitively: the directory keeps it
    // lower-cased); `nomail` has none and gets nothing.
    expect(mails.map((m) => m.to).sort()).toEqual(["ann@example.com", "bob@example.com"]);
    const ann = mails.find((m) => m.to === "ann@example.com")!;
    expect(ann.from).toBe("approvals@toolnexus.test");
    const { headers, subject, text, html, links } = ann.mail;
    expect(subject).toBe("Approval needed: Refund $80 on order 7?");
    expect(headers.get("auto-submitted")).toBe("auto-generated");
    expect(headers.get("mime-version")).toBe("1.0");
    expect(headers.get("message-id")).toMatch(/^<approval\.[0-9a-f]{32}@toolnexus\.test>$/);
    expect(Date.parse(headers.get("date")!)).toBeGreaterThan(Date.now() - 60_000);
    expect(ann.mail.contentType).toMatch(/^multipart\/alternative; boundary=/);
    expect(text).toContain("Refund $80 on order 7?");
    expect(text).toContain('"orderId": "7"');
    expect(text).toMatch(/^Expires: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in /m);
    expect(html).toContain('<pre id="args"');
    expect(html).toContain("&quot;amount&quot;: 80");
    expect(links.approve).toMatch(
      /^https:\/\/edge\.test\/email\/p\.[\w-]+\.[\w-]+\?decision=approve$/,
    );
    expect(links.decline).toBe(links.approve.replace("=approve", "=decline"));
    expect(html).toContain(`href="${links.approve}"`);

    // A scanner prefetches both links: pages, no decision.
    const prefetched = await openLink(links.approve);
    expect(prefetched.status).toBe(200);
    expect(prefetched.html).toContain("Deciding as <strong>ann@example.com (confirm to approve)");
    expect((await openLink(links.decline)).status).toBe(200);
    const pending = await getRun(runId);
    expect(pending.status).toBe("pending");
    expect(pending.decisions).toEqual([]);

    // A POST without the page's CSRF token (another site's form) decides nothing.
    expect((await confirm(links.approve, { decision: "approve" })).status).toBe(403);
    expect((await getRun(runId)).decisions).toEqual([]);

    const confirmed = await confirm(links.approve, {
      decision: "approve",
      csrf: prefetched.csrf!,
      argsHash: prefetched.argsHash!,
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.html).toContain("Decision recorded: approved");
    const done = await waitForStatus(runId, ["done"]);
    expect(done.decisions[0]).toMatchObject({
      decision: "approve",
      channel: "email",
      decidedBy: "ann@example.com",
    });

    // The channel is named in the receipt and in the run's `resumed` event too.
    expect((await receiptsOf(runId)).map((r) => r.channel)).toEqual(["email"]);
    expect((await eventsOf(runId)).find((e) => e.type === "resumed")?.data).toMatchObject({
      channel: "email",
    });

    // The same link again: refused, nothing changes.
    const again = await confirm(links.approve, { decision: "approve", csrf: prefetched.csrf! });
    expect(again.status).toBe(409);
    expect((await getRun(runId)).decisions).toHaveLength(1);
    // Decided: nobody got another email about it.
    expect(await mailFor(request.id)).toHaveLength(2);
  });

  it("four eyes by email: a link decides once, a non-member decides nothing, a decision elsewhere sends nothing new", async () => {
    const { runId, threadId, request } = await startPending("Please refund $2000 on order 42");
    const mails = await emailsFor(request.id, 3);
    expect(mails.map((m) => m.to).sort()).toEqual([
      "ann@example.com",
      "bob@example.com",
      "carol@example.com",
    ]);
    const ann = mails.find((m) => m.to === "ann@example.com")!.mail;
    expect(ann.text).toContain("Votes: 0 of 2 approvals");

    const page = await openLink(ann.links.approve);
    const vote = await confirm(ann.links.approve, {
      decision: "approve",
      csrf: page.csrf!,
      argsHash: page.argsHash!,
    });
    expect(vote.status).toBe(200);
    expect(vote.html).toContain("1 of 2 approvals so far");
    // Used twice: refused (the link's id is its delivery id in the ledger), still one vote.
    const twice = await confirm(ann.links.approve, {
      decision: "approve",
      csrf: page.csrf!,
      argsHash: page.argsHash!,
    });
    expect(twice.status).toBe(409);
    expect(twice.html).toContain("already used");
    // Its Decline link is the same link: a changed mind is refused too.
    const declined = await confirm(ann.links.decline, { decision: "decline", csrf: page.csrf! });
    expect(declined.status).toBe(409);

    // A personal link for someone outside `finance`: the page shows, the decision is refused.
    const token = await createApproverToken([WEBHOOK_SECRET], {
      threadId,
      runId,
      requestId: request.id,
      approver: "mallory@example.com",
      exp: Math.floor(Date.now() / 1000) + 600,
    });
    const outsider = `${BASE}/email/${token}`;
    const outsiderPage = await openLink(outsider);
    expect(outsiderPage.status).toBe(200);
    const refused = await confirm(outsider, {
      decision: "approve",
      csrf: outsiderPage.csrf!,
      argsHash: outsiderPage.argsHash!,
    });
    expect(refused.status).toBe(403);
    const state = (await getRun(runId)).requests.find(
      (r: { requestId: string }) => r.requestId === request.id,
    );
    expect(state?.votes).toEqual([
      expect.objectContaining({
        decidedBy: "ann@example.com",
        channel: "email",
        decision: "approve",
      }),
    ]);
    expect(state?.refused).toEqual([
      expect.objectContaining({
        decidedBy: "mallory@example.com",
        channel: "email",
        code: "not_an_approver",
      }),
    ]);

    // bob decides elsewhere (a signed webhook): the request applies; nobody gets a new email.
    const decided = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "bob",
      argsHash: page.argsHash,
    });
    expect(decided.status).toBe(202);
    await waitForStatus(runId, ["done"]);
    expect(await mailFor(request.id)).toHaveLength(3);
    // carol's link now: the request is decided.
    const carol = mails.find((m) => m.to === "carol@example.com")!.mail;
    expect((await openLink(carol.links.approve)).status).toBe(409);
  });

  it("a reminder is an email of its own, in the first one's thread; an escalation emails the next group", async () => {
    const { threadId, request, stub } = await startPending("Please delete my account");
    const first = await emailsFor(request.id, 2);
    expect(first.map((m) => m.to).sort()).toEqual(["lead2@example.com", "lead@example.com"]);
    await sqlIn(
      threadId,
      "UPDATE approvals SET next_remind_at = ? WHERE request_id = ?",
      Date.now() - 1,
      request.id,
    );
    await runDurableObjectAlarm(stub);
    const all = await emailsFor(request.id, 4);
    const reminders = all.filter((m) => m.mail.subject.startsWith("Reminder 1: "));
    expect(reminders.map((m) => m.to).sort()).toEqual(["lead2@example.com", "lead@example.com"]);
    const lead = reminders.find((m) => m.to === "lead@example.com")!.mail;
    const leadFirst = first.find((m) => m.to === "lead@example.com")!.mail;
    expect(lead.headers.get("in-reply-to")).toBe(leadFirst.headers.get("message-id"));
    expect(lead.headers.get("message-id")).not.toBe(leadFirst.headers.get("message-id"));
    expect(lead.text).toContain("Reminder 1: this request is still waiting for a decision.");

    // The escalation lets `managers` decide too: they get their first email, the leads nothing new.
    await sqlIn(
      threadId,
      "UPDATE approvals SET escalate_at = ? WHERE request_id = ?",
      Date.now() - 1,
      request.id,
    );
    await runDurableObjectAlarm(stub);
    const escalated = await emailsFor(request.id, 5);
    expect(escalated.filter((m) => m.to === "max@example.com").map((m) => m.mail.subject)).toEqual([
      "Approval needed: Delete this account? This cannot be undone.",
    ]);
    expect(escalated).toHaveLength(5);
  });

  it("a refused send is retried through the notify queue; each member still gets one email", async () => {
    await failMail(1);
    const { threadId, request } = await startPending("Refund order 8 for $85");
    const mails = await emailsFor(request.id, 2);
    expect(mails.map((m) => m.to).sort()).toEqual(["ann@example.com", "bob@example.com"]);
    // The thread knows both were sent: a redelivery or a later change claims nobody again.
    const rows = await sqlIn(
      threadId,
      "SELECT member, kind, sent FROM email_sends WHERE request_id = ? ORDER BY member",
      request.id,
    );
    expect(rows).toEqual([
      { member: "ann@example.com", kind: "first", sent: 1 },
      { member: "bob", kind: "first", sent: 1 },
    ]);
  });
});
