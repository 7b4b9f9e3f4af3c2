// The inbox with approver rules: votes so far, editing arguments where the rules allow it,
// and escalation bringing the request into the escalation group's inbox.
import { describe, expect, it } from "vitest";
import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import { api, BASE, waitForStatus } from "../helpers/edge";
import { sqlIn, startPending, until } from "../helpers/durable";
import type { InboxItem } from "../../src/edge/inbox/item";

async function signIn(approver: string): Promise<string> {
  const created = await api("/v1/approvers/links", {
    method: "POST",
    body: JSON.stringify({ approver }),
  });
  const { url } = await created.json<{ url: string }>();
  const response = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
  return (response.headers.get("set-cookie") ?? "").split(";")[0]!;
}

async function page(cookie: string): Promise<string> {
  return (await SELF.fetch(`${BASE}/inbox`, { headers: { cookie } })).text();
}

function post(cookie: string, form: Record<string, string>) {
  return SELF.fetch(`${BASE}/inbox/decide`, {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
/** The version of the arguments the page shows for one request (its approve forms carry it). */
const argsHashOf = (html: string, requestId: string) => {
  const section = html.slice(html.indexOf(`data-request="${requestId}"`));
  return /name="argsHash" value="([^"]+)"/.exec(section)?.[1] ?? "";
};

async function inGroup(group: string, runId: string): Promise<InboxItem | undefined> {
  const response = await api(`/v1/approvals?group=${group}&limit=200`);
  const { items } = await response.json<{ items: InboxItem[] }>();
  return items.find((i) => i.runId === runId);
}

describe("inbox with approver rules", () => {
  it("shows votes so far, lets a member edit the editable argument, and applies at quorum", async () => {
    // Above $1,000: two members of finance, who may edit the amount (the demo agent's rules).
    const { runId, request } = await startPending("Refund order 5 for $2000");
    const ann = await signIn("ann@example.com");
    const html = await until(async () => {
      const text = await page(ann);
      return text.includes(request.id) && text;
    }, "the request on ann's page");
    expect(html).toContain("0 of 2 approvals");
    expect(html).toContain('name="arg:amount" value="2000"');
    expect(html).not.toContain('name="arg:orderId"');

    const first = await post(ann, {
      csrf: csrfOf(html),
      runId,
      requestId: request.id,
      decision: "approve",
      argsHash: argsHashOf(html, request.id),
    });
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("Vote recorded (1 of 2 approvals)");
    expect((await inGroup("finance", runId))?.event).toBe("vote");

    // bob lowers the amount: his vote counts for the new arguments, ann's is reset.
    const bob = await signIn("bob@example.com");
    const edited = await post(bob, {
      csrf: csrfOf(await page(bob)),
      runId,
      requestId: request.id,
      decision: "approve",
      "arg:amount": "1500",
      "arg:orderId": '"999"', // not editable: ignored
    });
    expect(edited.status).toBe(200);
    expect(await edited.text()).toContain("Vote recorded (1 of 2 approvals)");

    const carol = await signIn("carol@example.com");
    const carolPage = await page(carol);
    const last = await post(carol, {
      csrf: csrfOf(carolPage),
      runId,
      requestId: request.id,
      decision: "approve",
      argsHash: argsHashOf(carolPage, request.id),
    });
    expect(await last.text()).toContain("Approved: ");
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe(
      'Done, with the approver\'s changes ({"orderId":"5","amount":1500}): Refunded $1500 on order 5',
    );
    const item = await until(async () => {
      const response = await api(`/v1/approvals?group=finance&status=decided&limit=200`);
      const { items } = await response.json<{ items: InboxItem[] }>();
      return items.find((i) => i.runId === runId);
    }, "the decided item");
    expect(item.decision).toMatchObject({ outcome: "approved", decidedBy: "carol@example.com" });
  });

  it("an outsider of the request's group cannot see or decide it from the page", async () => {
    const { runId, request } = await startPending("Refund order 6 for $3000");
    await until(() => inGroup("finance", runId), "the request in finance");
    const stranger = await signIn("lead@example.com");
    const html = await page(stranger);
    expect(html).not.toContain(request.id);
    // Nothing to decide: the page has no form, so no CSRF token either (403), and a request
    // outside the member's inboxes is 404 whatever the token.
    const response = await post(stranger, {
      csrf: csrfOf(html),
      runId,
      requestId: request.id,
      decision: "approve",
    });
    expect([403, 404]).toContain(response.status);
    expect((await waitForStatus(runId, ["pending"])).decisions).toEqual([]);
  });

  it("escalation brings the request into the escalation group's inbox", async () => {
    // delete_account: support-leads, escalated to managers after 30 minutes.
    const { runId, threadId, request, stub } = await startPending("Please delete my account");
    const before = await until(() => inGroup("support-leads", runId), "support-leads inbox");
    expect(before.groups).toEqual(["support-leads"]);
    expect(await inGroup("managers", runId)).toBeUndefined();
    await sqlIn(
      threadId,
      "UPDATE approvals SET escalate_at = ? WHERE request_id = ?",
      Date.now() - 1,
      request.id,
    );
    await runDurableObjectAlarm(stub);
    const escalated = await until(() => inGroup("managers", runId), "managers inbox");
    expect(escalated).toMatchObject({ event: "escalated", groups: ["support-leads", "managers"] });
    expect((await inGroup("support-leads", runId))?.event).toBe("escalated");
  });
});
