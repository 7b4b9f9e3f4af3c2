// The /inbox page: sign-in by a per-approver link (session cookie), CSRF on every POST,
// no script, escaping, and decisions recorded through the thread's ledger (channel inbox).
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { api, BASE, getRun, waitForStatus } from "../helpers/edge";
import { startPending, until } from "../helpers/durable";
import { renderInboxPage } from "../../src/edge/inbox/page";
import { relative } from "../../src/edge/pages/layout";
import type { InboxItem } from "../../src/edge/inbox/item";

async function signIn(approver: string, base = BASE): Promise<string> {
  const created = await api("/v1/approvers/links", {
    method: "POST",
    body: JSON.stringify({ approver }),
  });
  expect(created.status).toBe(201);
  const { url, expiresAt } = await created.json<{ url: string; expiresAt: string }>();
  expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
  const path = new URL(url).pathname;
  const response = await SELF.fetch(`${base}${path}`, { redirect: "manual" });
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe("/inbox");
  const cookie = response.headers.get("set-cookie") ?? "";
  return cookie;
}

const cookieValue = (setCookie: string) => setCookie.split(";")[0]!;

async function inboxPage(cookie: string): Promise<string> {
  const response = await SELF.fetch(`${BASE}/inbox`, { headers: { cookie } });
  expect(response.status).toBe(200);
  return response.text();
}

function csrfOf(html: string): string {
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
}

function post(cookie: string, form: Record<string, string>, base = BASE) {
  return SELF.fetch(`${base}/inbox/decide`, {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
}

describe("approver sign-in links", () => {
  it("POST /v1/approvers/links needs the bearer token and names a bad field", async () => {
    const anonymous = await api("/v1/approvers/links", {
      method: "POST",
      headers: { authorization: "Bearer wrong" },
      body: JSON.stringify({ approver: "ann@example.com" }),
    });
    expect(anonymous.status).toBe(401);
    for (const body of [
      {},
      { approver: "" },
      { approver: "a".repeat(321) },
      { approver: "a", x: 1 },
    ]) {
      const response = await api("/v1/approvers/links", {
        method: "POST",
        body: JSON.stringify(body),
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("sets an HttpOnly, SameSite=Lax session cookie, Secure except on loopback", async () => {
    const secure = await signIn("Ann@Example.com");
    expect(secure).toMatch(/^toolnexus_inbox=[^;]+/);
    expect(secure).toMatch(/HttpOnly/);
    expect(secure).toMatch(/SameSite=Lax/);
    expect(secure).toMatch(/Secure/);
    expect(secure).toMatch(/Path=\/inbox/);
    const loopback = await signIn("ann@example.com", "http://127.0.0.1:8787");
    expect(loopback).not.toMatch(/Secure/);
    // Emails compare case-insensitively: the same member either way.
    expect(await inboxPage(cookieValue(secure))).toContain(">ann@example.com</strong>");
  });

  it("a tampered link or a missing/forged session signs nobody in", async () => {
    const bad = await SELF.fetch(`${BASE}/inbox/signin/e30.AAAA`, { redirect: "manual" });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("set-cookie")).toBeNull();
    expect((await SELF.fetch(`${BASE}/inbox`)).status).toBe(401);
    const forged = await SELF.fetch(`${BASE}/inbox`, {
      headers: { cookie: "toolnexus_inbox=eyJzdWIiOiJtYWxsb3J5IiwiZXhwIjo5OTk5OTk5OTk5fQ.AAAA" },
    });
    expect(forged.status).toBe(401);
  });
});

describe("/inbox", () => {
  it("lists open requests across threads and decides one with CSRF; the page shows the outcome", async () => {
    const cookie = cookieValue(await signIn("carol@example.com"));
    const first = await startPending("Refund order 7 for $80"); // no rules: the default inbox
    const second = await startPending("Refund order 42, $80");
    const html = await until(async () => {
      const page = await inboxPage(cookie);
      return page.includes(first.request.id) && page.includes(second.request.id) && page;
    }, "both requests on the page");
    const response = await SELF.fetch(`${BASE}/inbox`, { headers: { cookie } });
    expect(response.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(html).not.toMatch(/<script/i);
    expect(html).toMatch(/UTC \(in 1[45] minutes\)/);

    // No CSRF token, or one for somebody else: refused, nothing decided.
    const noCsrf = await post(cookie, {
      runId: first.runId,
      requestId: first.request.id,
      decision: "approve",
    });
    expect(noCsrf.status).toBe(403);
    const otherCookie = cookieValue(await signIn("dan@example.com"));
    const otherCsrf = csrfOf(await inboxPage(otherCookie));
    const wrongCsrf = await post(cookie, {
      csrf: otherCsrf,
      runId: first.runId,
      requestId: first.request.id,
      decision: "approve",
    });
    expect(wrongCsrf.status).toBe(403);
    expect((await getRun(first.runId)).status).toBe("pending");

    const declined = await post(cookie, {
      csrf: csrfOf(html),
      runId: second.runId,
      requestId: second.request.id,
      decision: "decline",
      reason: "over budget",
    });
    expect(declined.status).toBe(200);
    const after = await declined.text();
    expect(after).toContain("Declined: ");
    expect(after).toMatch(/class="outcome">declined — over budget/);
    const run = await waitForStatus(second.runId, ["done"]);
    expect(run.decisions[0]).toMatchObject({
      decision: "decline",
      channel: "inbox",
      decidedBy: "carol@example.com",
      answer: { ok: false, reason: "over budget" },
    });

    // A second decision on the same request is refused and says why.
    const again = await post(cookie, {
      csrf: csrfOf(html),
      runId: second.runId,
      requestId: second.request.id,
      decision: "approve",
    });
    expect(again.status).toBe(409);
  });

  it("refuses forms over 16 KiB with 413", async () => {
    const cookie = cookieValue(await signIn("erin@example.com"));
    const response = await post(cookie, { csrf: "x", reason: "r".repeat(17 * 1024) });
    expect(response.status).toBe(413);
  });

  it("a request in no inbox of the approver's cannot be decided from the page", async () => {
    const cookie = cookieValue(await signIn("erin@example.com"));
    // Something open in erin's inbox (default), so his page carries a form and its CSRF token.
    const open = await startPending("Refund order 42, $80");
    const csrf = csrfOf(
      await until(async () => {
        const html = await inboxPage(cookie);
        return html.includes(open.request.id) && html;
      }, "an open request on erin's page"),
    );
    expect(csrf).not.toBe("");
    const response = await post(cookie, {
      csrf,
      runId: "th_nothere.run_0123456789abcdef0123",
      requestId: "apr_x",
      decision: "approve",
    });
    expect(response.status).toBe(404);
  });
});

describe("inbox rendering", () => {
  it("says how far a time is", () => {
    const now = Date.UTC(2026, 0, 1, 12);
    expect(relative(now + 14 * 60_000, now)).toBe("in 14 minutes");
    expect(relative(now - 3 * 3600_000, now)).toBe("3 hours ago");
    expect(relative(now + 10_000, now)).toBe("just now");
    expect(relative(now + 2 * 86_400_000, now)).toBe("in 2 days");
    expect(relative(now + 60_000, now)).toBe("in 1 minute");
  });

  it("escapes everything a model or tool wrote", () => {
    const evil = "<img src=x onerror=alert(1)>\"'&";
    const item = {
      requestId: evil,
      runId: evil,
      threadId: "t",
      agent: evil,
      input: evil,
      requestedBy: evil,
      tool: evil,
      args: { note: evil },
      argsHash: evil,
      editedBy: evil,
      metadata: null,
      prompt: evil,
      kind: "approval",
      expiresAt: null,
      groups: ["default"],
      status: "open",
      event: "surfaced",
      votes: [],
      needed: null,
      decision: null,
      surfacedAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      version: 1,
    } satisfies InboxItem;
    const html = renderInboxPage({
      member: evil,
      groups: [evil],
      open: [item],
      decided: [
        {
          ...item,
          status: "decided",
          decision: {
            outcome: "declined",
            decidedBy: evil,
            channel: "slack",
            decidedAt: item.updatedAt,
            reason: evil,
          },
        },
      ],
      csrf: evil,
      notice: { kind: "ok", text: evil },
      now: Date.now(),
    });
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;");
  });

  it("an approval in its undo window (rule delay) has an Undo button that revokes it, until the window ends", () => {
    const now = Date.UTC(2026, 0, 1, 12);
    const approved = {
      requestId: "apr_c1",
      runId: "th_a.run_b",
      threadId: "th_a",
      agent: "support",
      input: "refund",
      requestedBy: null,
      tool: "refund_order",
      args: { orderId: "42" },
      argsHash: "h",
      editedBy: null,
      metadata: null,
      prompt: "Refund?",
      kind: "approval",
      expiresAt: null,
      groups: ["finance"],
      status: "decided",
      event: "decided",
      votes: [],
      needed: 1,
      decision: {
        outcome: "approved",
        decidedBy: "ann",
        channel: "inbox",
        decidedAt: new Date(now - 60_000).toISOString(),
        reason: null,
      },
      heldUntil: new Date(now + 60_000).toISOString(),
      surfacedAt: new Date(now - 120_000).toISOString(),
      updatedAt: new Date(now - 60_000).toISOString(),
      version: 2,
    } satisfies InboxItem;
    const page = (item: InboxItem) =>
      renderInboxPage({
        member: "bob",
        groups: ["finance"],
        open: [],
        decided: [item],
        csrf: "c",
        now,
      });
    const held = page(approved);
    expect(held).toContain('<button type="submit" name="decision" value="revoke">Undo</button>');
    expect(held).toContain('name="requestId" value="apr_c1"');
    expect(page({ ...approved, heldUntil: new Date(now).toISOString() })).not.toContain("revoke");
    expect(page({ ...approved, heldUntil: undefined })).not.toContain("revoke");
  });
});
