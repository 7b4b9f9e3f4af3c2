/**
 * Issue 22: an outside attack broke four-eyes with an edit race and a replay. Each test here
 * failed before the fix: a vote is bound to the version of the arguments it was cast on
 * (argsHash) on every surface, a signed delivery counts once for the request's whole life,
 * and a closed request answers 409 before asking who is deciding.
 */
import { describe, expect, it } from "vitest";
import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import { api, BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";
import { sqlIn, startPending, until } from "../helpers/durable";
import { argsHash } from "../../src/core/approvers/args-hash";
import type { InboxItem } from "../../src/edge/inbox/item";

const BIG_REFUND = "Please refund $2000 on order 42"; // finance, quorum 2, amount editable
const V1 = argsHash({ orderId: "42", amount: 2000 });
const V2 = argsHash({ orderId: "42", amount: 9000 });

type Json = Record<string, unknown> & { error?: { code: string; message: string } };

async function vote(runId: string, requestId: string, body: Record<string, unknown>) {
  const response = await signedDecision({ runId, requestId, decision: "approve", ...body });
  return { status: response.status, json: (await response.json()) as Json };
}

/** bob edits the refund to $9000 through the signed webhook: ann's earlier view is now stale. */
async function bobEdits(runId: string, requestId: string) {
  const edited = await vote(runId, requestId, {
    decidedBy: "bob",
    args: { orderId: "42", amount: 9000 },
  });
  expect(edited).toMatchObject({ status: 202, json: { votes: 1, needed: 2 } });
}

async function signIn(approver: string): Promise<string> {
  const created = await api("/v1/approvers/links", {
    method: "POST",
    body: JSON.stringify({ approver }),
  });
  expect(created.status).toBe(201);
  const { url } = await created.json<{ url: string }>();
  const response = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
  return (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

const inboxPage = async (cookie: string) =>
  (await SELF.fetch(`${BASE}/inbox`, { headers: { cookie } })).text();
const hidden = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";

async function financeItem(runId: string): Promise<InboxItem | undefined> {
  const response = await api("/v1/approvals?group=finance&limit=200");
  const { items } = await response.json<{ items: InboxItem[] }>();
  return items.find((i) => i.runId === runId);
}

/** The run's votes and refusals: what a refused attempt must leave unchanged. */
async function ledgerOf(runId: string) {
  const run = await getRun(runId);
  return { votes: run.requests[0]?.votes ?? [], refused: run.requests[0]?.refused ?? [] };
}

describe("the edit race, through every surface", { timeout: 30_000 }, () => {
  it("webhook: an approval of the version before an edit is 409 args_changed with the current arguments, and records nothing", async () => {
    const { runId, request, run } = await startPending(BIG_REFUND);
    expect(run.pending).toMatchObject({ argsHash: V1 });
    expect(run.requests[0]).toMatchObject({ argsHash: V1, args: { orderId: "42", amount: 2000 } });
    await bobEdits(runId, request.id);
    const before = await ledgerOf(runId);

    const stale = await vote(runId, request.id, { decidedBy: "ann@example.com", argsHash: V1 });
    expect(stale.status).toBe(409);
    expect(stale.json).toEqual({
      error: { code: "args_changed", message: expect.any(String) },
      args: { orderId: "42", amount: 9000 },
      argsHash: V2,
    });
    // Without a version, once the arguments were edited: the same.
    const bare = await vote(runId, request.id, { decidedBy: "carol@example.com" });
    expect(bare.status).toBe(409);
    expect(bare.json.error?.code).toBe("args_changed");
    expect(await ledgerOf(runId)).toEqual(before);
    expect((await getRun(runId)).pending).toMatchObject({ argsHash: V2 });

    // ann approves what she now sees: that applies the $9000.
    const current = await vote(runId, request.id, { decidedBy: "ann@example.com", argsHash: V2 });
    expect(current).toMatchObject({ status: 202, json: { votes: 2 } });
    const done = await waitForStatus(runId, ["done"]);
    expect(done.toolCalls.find((c) => c.name === "refund_order")?.args).toEqual({
      orderId: "42",
      amount: 9000,
    });
    expect(done.requests[0]?.votes.map((v) => [v.decidedBy, v.argsHash, v.reset ?? false])).toEqual(
      [
        ["bob", V2, false],
        ["ann@example.com", V2, false],
      ],
    );
  });

  it("inbox: a form loaded before the edit is refused, and the item shows the edited arguments", async () => {
    const { runId, request } = await startPending(BIG_REFUND);
    const ann = await signIn("ann@example.com");
    const stalePage = await until(async () => {
      const html = await inboxPage(ann);
      return html.includes(request.id) && html;
    }, "the request on ann's page");
    expect(hidden(stalePage, "argsHash")).toBe(V1);
    await bobEdits(runId, request.id);

    const response = await SELF.fetch(`${BASE}/inbox/decide`, {
      method: "POST",
      headers: { cookie: ann, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        csrf: hidden(stalePage, "csrf"),
        runId,
        requestId: request.id,
        decision: "approve",
        argsHash: hidden(stalePage, "argsHash"),
      }).toString(),
    });
    expect(response.status).toBe(409);
    expect(await response.text()).toContain("Not recorded");
    expect((await getRun(runId)).status).toBe("pending");
    expect((await ledgerOf(runId)).votes).toHaveLength(1);

    const item = await until(async () => {
      const found = await financeItem(runId);
      return found?.argsHash === V2 && found;
    }, "the edited item");
    expect(item).toMatchObject({ args: { orderId: "42", amount: 9000 }, editedBy: "bob" });
    const fresh = await inboxPage(ann);
    expect(hidden(fresh.slice(fresh.indexOf(`data-request="${request.id}"`)), "argsHash")).toBe(V2);
    expect(fresh).toContain("Arguments edited by bob");
  });

  it("personal page: a page loaded before the edit carries its version, and its approval is refused", async () => {
    const { runId, request } = await startPending(BIG_REFUND);
    const link = await api(`/v1/runs/${runId}/links`, {
      method: "POST",
      body: JSON.stringify({ requestId: request.id, approver: "ann@example.com" }),
    });
    expect(link.status).toBe(201);
    expect(link.headers.get("cache-control")).toBe("no-store");
    const path = new URL((await link.json<{ url: string }>()).url).pathname;
    const loaded = await (await SELF.fetch(`${BASE}${path}`)).text();
    expect(hidden(loaded, "argsHash")).toBe(V1);
    expect(loaded).toContain('name="arg:amount"'); // the personal page edits where the rule allows
    await bobEdits(runId, request.id);

    const posted = await SELF.fetch(`${BASE}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ decision: "approve", argsHash: V1 }).toString(),
    });
    expect(posted.status).toBe(409);
    expect(await posted.text()).toContain("The arguments changed");
    expect((await ledgerOf(runId)).votes).toHaveLength(1);

    const reloaded = await (await SELF.fetch(`${BASE}${path}`)).text();
    expect(hidden(reloaded, "argsHash")).toBe(V2);
    const approved = await SELF.fetch(`${BASE}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ decision: "approve", argsHash: V2 }).toString(),
    });
    expect(approved.status).toBe(200);
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toContain("Refunded $9000");
  });

  it("personal page: an edit from the page counts as an edit, resetting earlier approvals", async () => {
    const { runId, request } = await startPending(BIG_REFUND);
    expect(await vote(runId, request.id, { decidedBy: "bob" })).toMatchObject({ status: 202 });
    const link = await api(`/v1/runs/${runId}/links`, {
      method: "POST",
      body: JSON.stringify({ requestId: request.id, approver: "ann@example.com" }),
    });
    const path = new URL((await link.json<{ url: string }>()).url).pathname;
    const loaded = await (await SELF.fetch(`${BASE}${path}`)).text();
    const posted = await SELF.fetch(`${BASE}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        decision: "approve",
        argsHash: hidden(loaded, "argsHash"),
        "arg:amount": "1500",
      }).toString(),
    });
    expect(posted.status).toBe(200);
    const { votes } = await ledgerOf(runId);
    expect(votes.map((v) => [v.decidedBy, v.reset ?? false, v.args ?? null])).toEqual([
      ["bob", true, null],
      ["ann@example.com", false, { orderId: "42", amount: 1500 }],
    ]);
  });
});

describe("replays", { timeout: 30_000 }, () => {
  it("a signed decision replayed after an edit reset is the identical repeat (200), never a new vote", async () => {
    const { runId, request } = await startPending(BIG_REFUND);
    const body = {
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "ann@example.com",
    };
    const delivery = { id: `msg_replay_${request.id}`, now: Date.now() };
    const first = await signedDecision(body, delivery);
    expect(first.status).toBe(202);
    await bobEdits(runId, request.id);
    expect((await ledgerOf(runId)).votes.map((v) => v.reset ?? false)).toEqual([true, false]);

    const replayed = await signedDecision(body, delivery);
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toMatchObject({ duplicate: true, decision: null });
    expect((await ledgerOf(runId)).votes).toHaveLength(2);
    expect((await getRun(runId)).status).toBe("pending");
  });
});

describe("edits name only what the tool takes", { timeout: 30_000 }, () => {
  it.each([
    ["extra", null],
    ["constructor", 1],
    ["toString", null],
    ["approvers", null],
  ])("an added %s key (value %j) is 400 not_editable and records nothing", async (key, value) => {
    const { runId, request } = await startPending(BIG_REFUND);
    const out = await vote(runId, request.id, {
      decidedBy: "ann@example.com",
      args: JSON.parse(JSON.stringify({ orderId: "42", amount: 5000, [key]: value })),
    });
    expect(out.status).toBe(400);
    expect(out.json.error?.code).toBe("not_editable");
    expect((await ledgerOf(runId)).votes).toEqual([]);
  });
});

describe("after expiry everyone gets 409", { timeout: 30_000 }, () => {
  async function expiredRun(alarm: boolean) {
    const started = await startPending(BIG_REFUND, { requestedBy: "dan@example.com" });
    const { runId, threadId, request, stub } = started;
    expect(await vote(runId, request.id, { decidedBy: "ann@example.com" })).toMatchObject({
      status: 202,
    });
    await sqlIn(
      threadId,
      "UPDATE runs SET expires_at = ? WHERE run_id = ?",
      Date.now() - 1000,
      runId,
    );
    if (alarm) {
      await runDurableObjectAlarm(stub);
      await until(async () => (await getRun(runId)).decisions.length > 0, "the expiry decision");
    }
    return started;
  }

  it.each([
    ["before the expiry alarm has run", false],
    ["after the expiry alarm has run", true],
  ])(
    "%s: outsider and requester get request_expired, no refusal is recorded, a repeat is 200",
    async (_when, alarm) => {
      const { runId, request } = await expiredRun(alarm);
      for (const who of ["eve@example.com", "dan@example.com", "carol@example.com"]) {
        const out = await vote(runId, request.id, { decidedBy: who });
        expect(out.status, who).toBe(409);
        expect(out.json.error?.code, who).toBe("request_expired");
      }
      expect((await ledgerOf(runId)).refused).toEqual([]);
      const repeat = await vote(runId, request.id, { decidedBy: "ann@example.com" });
      expect(repeat.status).toBe(200);
    },
  );

  it("a request without rules, after the alarm: request_expired, not a conflict", async () => {
    const { runId, threadId, request, stub } = await startPending("Refund order 7 for $80");
    await sqlIn(
      threadId,
      "UPDATE runs SET expires_at = ? WHERE run_id = ?",
      Date.now() - 1000,
      runId,
    );
    await runDurableObjectAlarm(stub);
    await until(async () => (await getRun(runId)).decisions.length > 0, "the expiry decision");
    const out = await vote(runId, request.id, {});
    expect(out.status).toBe(409);
    expect(out.json.error?.code).toBe("request_expired");
  });
});

describe("sign-in links and headers", () => {
  it.each([
    ["a stranger", "eve@example.com"],
    ["markup", "<b>ann</b>@example.com"],
    ["a Cyrillic look-alike of a member", "ann@ex\u0430mple.com"],
    ["a zero-width joiner inside a member", "ann\u200d@example.com"],
  ])("no sign-in link for %s (403 not_an_approver)", async (_what, approver) => {
    const response = await api("/v1/approvers/links", {
      method: "POST",
      body: JSON.stringify({ approver }),
    });
    expect(response.status).toBe(403);
    expect((await response.json<Json>()).error?.code).toBe("not_an_approver");
  });

  it("identities compare after NFKC: a full-width spelling of a member signs in as that member", async () => {
    const cookie = await signIn("\uff41\uff4e\uff4e@example.com");
    expect(await inboxPage(cookie)).toContain(">ann@example.com</strong>");
  });

  it("the sign-in redirect and every JSON response with a link token are not cached", async () => {
    const created = await api("/v1/approvers/links", {
      method: "POST",
      body: JSON.stringify({ approver: "ann@example.com" }),
    });
    expect(created.headers.get("cache-control")).toBe("no-store");
    const { url } = await created.json<{ url: string }>();
    const redirect = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get("cache-control")).toBe("no-store");
    expect(redirect.headers.get("referrer-policy")).toBe("no-referrer");

    const { runId } = await startPending("Refund order 7 for $80");
    const run = await api(`/v1/runs/${runId}`);
    expect((await run.json<{ approvalUrl?: string }>()).approvalUrl).toBeDefined();
    expect(run.headers.get("cache-control")).toBe("no-store");
  });
});
