/**
 * Issue 42 item 4: delegation. POST/GET/DELETE /v1/approvers/delegations, and the ledger
 * letting a delegate decide what the member they stand in for may — once per person and once
 * per seat, never on their own request or that member's, and only while the delegation runs.
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { api, BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";
import { startPending, until } from "../helpers/durable";
import { receiptPayload } from "../helpers/receipts";
import { importJwks, verifyReceiptChain } from "../../src/edge/receipts/verify";

const BIG_REFUND = "Please refund $2000 on order 42"; // finance, quorum 2
const HOUR = 3600_000;
const later = (ms = HOUR) => new Date(Date.now() + ms).toISOString();

type Json = Record<string, any>;

async function delegate(body: Record<string, unknown>, user?: string) {
  const response = await api("/v1/approvers/delegations", {
    method: "POST",
    body: JSON.stringify(body),
    headers: user ? { "x-toolnexus-user": user } : {},
  });
  return { status: response.status, json: (await response.json()) as Json };
}

async function list(user?: string): Promise<Json[]> {
  const response = await api("/v1/approvers/delegations", {
    headers: user ? { "x-toolnexus-user": user } : {},
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as Json).items;
}

async function end(id: string, user?: string) {
  const response = await api(`/v1/approvers/delegations/${id}`, {
    method: "DELETE",
    headers: user ? { "x-toolnexus-user": user } : {},
  });
  return { status: response.status, json: (await response.json()) as Json };
}

async function vote(
  started: { runId: string; request: { id: string; argsHash: string } },
  decidedBy: string,
  decision: "approve" | "decline" = "approve",
) {
  const response = await signedDecision({
    runId: started.runId,
    requestId: started.request.id,
    decision,
    decidedBy,
    ...(decision === "approve" ? { argsHash: started.request.argsHash } : { reason: "no" }),
  });
  return { status: response.status, json: (await response.json()) as Json };
}

/** Ends every running delegation, so each test starts from none (storage is shared per file). */
async function clearAll() {
  for (const d of await list()) {
    await end(d.id, d.from);
  }
}

describe("the delegation routes", { timeout: 30_000 }, () => {
  it("a member delegates only themselves, to a member, for a while: every bad input is a clear 4xx", async () => {
    await clearAll();
    const body = { from: "ann@example.com", to: "lead@example.com", until: later() };
    expect((await delegate(body)).status).toBe(403); // the token names nobody
    const other = await delegate(body, "bob@example.com");
    expect(other).toMatchObject({ status: 403, json: { error: { code: "not_your_delegation" } } });
    const past = await delegate(
      { ...body, until: new Date(Date.now() - 1000).toISOString() },
      "ann@example.com",
    );
    expect(past).toMatchObject({ status: 400, json: { error: { code: "invalid_until" } } });
    const far = await delegate({ ...body, until: later(91 * 24 * HOUR) }, "ann@example.com");
    expect(far).toMatchObject({ status: 400, json: { error: { code: "invalid_until" } } });
    const stranger = await delegate({ ...body, to: "mallory@example.com" }, "ann@example.com");
    expect(stranger).toMatchObject({ status: 400, json: { error: { code: "unknown_member" } } });
    expect(stranger.json.error.issues[0].path).toBe("to");
    const notHers = await delegate({ ...body, groups: ["managers"] }, "ann@example.com");
    expect(notHers).toMatchObject({ status: 400, json: { error: { code: "invalid_groups" } } });
    const self = await delegate({ ...body, to: "Ann@Example.com" }, "ann@example.com");
    expect(self.status).toBe(400);
    const malformed = await delegate({ ...body, until: "tomorrow" }, "ann@example.com");
    expect(malformed).toMatchObject({ status: 400, json: { error: { code: "invalid_body" } } });
    const noToken = await SELF.fetch(`${BASE}/v1/approvers/delegations`);
    expect(noToken.status).toBe(401);

    const created = await delegate({ ...body, groups: ["finance"] }, "ann@example.com");
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: expect.stringMatching(/^dlg_/),
      from: "ann@example.com",
      to: "lead@example.com",
      groups: ["finance"],
      endedAt: null,
    });
    const id = created.json.id as string;

    // Who sees what: each side sees it, a third member does not, the bare token sees all.
    expect((await list("ann@example.com")).map((d) => d.id)).toEqual([id]);
    expect((await list("lead@example.com")).map((d) => d.id)).toEqual([id]);
    expect(await list("carol@example.com")).toEqual([]);
    expect((await list()).map((d) => d.id)).toContain(id);

    expect(await end(id, "carol@example.com")).toMatchObject({ status: 403 });
    expect((await end("dlg_00000000000000000000000000000000", "ann@example.com")).status).toBe(404);
    const ended = await end(id, "lead@example.com"); // the one who holds it may give it back
    expect(ended).toMatchObject({ status: 200, json: { id, endedAt: expect.any(String) } });
    expect(await list("ann@example.com")).toEqual([]);
    expect((await end(id, "ann@example.com")).status).toBe(200); // ending it again: the same
  });
});

describe("deciding as a delegate", { timeout: 30_000 }, () => {
  it("quorum: the delegate and the member they stand for are one seat, and one person counts once however many they stand in for", async () => {
    await clearAll();
    // lead is in support-leads only; ann and carol (finance) are away.
    for (const from of ["ann@example.com", "carol@example.com"]) {
      expect((await delegate({ from, to: "lead@example.com", until: later() }, from)).status).toBe(
        201,
      );
    }
    const started = await startPending(BIG_REFUND);
    const first = await vote(started, "lead@example.com");
    expect(first).toMatchObject({ status: 202, json: { votes: 1, needed: 2 } });
    // The same person again, whoever else they could stand in for: the one vote, counted once.
    expect(await vote(started, "lead@example.com")).toMatchObject({
      status: 200,
      json: { duplicate: true, votes: 1 },
    });
    // ann's seat is taken by her delegate: her own approval is that seat's repeat, not a second vote.
    expect(await vote(started, "ann@example.com")).toMatchObject({
      status: 200,
      json: { duplicate: true, votes: 1 },
    });
    expect((await getRun(started.runId)).status).toBe("pending");

    const second = await vote(started, "bob@example.com");
    expect(second).toMatchObject({ status: 202, json: { votes: 2 } });
    const done = await waitForStatus(started.runId, ["done"]);
    expect(done.requests[0]?.votes.map((v) => [v.decidedBy, v.onBehalfOf ?? null])).toEqual([
      ["lead@example.com", "ann@example.com"],
      ["bob", null],
    ]);
    const receipts = await until(async () => {
      const r = await (await api(`/v1/runs/${started.runId}/receipts`)).json<{
        receipts: string[];
      }>();
      return r.receipts.length > 0 && r.receipts;
    }, "the receipt");
    expect(receiptPayload(receipts[0] ?? "").votes).toEqual([
      expect.objectContaining({ decidedBy: "lead@example.com", onBehalfOf: "ann@example.com" }),
      expect.not.objectContaining({ onBehalfOf: expect.anything() }),
    ]);
  });

  it("a delegate who is also a member votes as themselves, once; the member they stand for keeps their own seat", async () => {
    await clearAll();
    await delegate(
      { from: "ann@example.com", to: "bob@example.com", until: later() },
      "ann@example.com",
    );
    const started = await startPending(BIG_REFUND);
    expect(await vote(started, "bob@example.com")).toMatchObject({
      status: 202,
      json: { votes: 1 },
    });
    expect(await vote(started, "bob@example.com")).toMatchObject({
      status: 200,
      json: { duplicate: true, votes: 1 },
    });
    expect((await getRun(started.runId)).requests[0]?.votes[0]).not.toHaveProperty("onBehalfOf");
    expect(await vote(started, "ann@example.com")).toMatchObject({
      status: 202,
      json: { votes: 2 },
    });
    await waitForStatus(started.runId, ["done"]);
  });

  it("the ledger and the receipt record decidedBy and onBehalfOf, and verify-receipts still verifies the chain", async () => {
    await clearAll();
    await delegate(
      { from: "ann@example.com", to: "lead@example.com", until: later() },
      "ann@example.com",
    );
    const started = await startPending(BIG_REFUND);
    expect((await vote(started, "lead@example.com", "decline")).status).toBe(202);
    const run = await waitForStatus(started.runId, ["done"]);
    expect(run.decisions[0]).toMatchObject({
      decision: "decline",
      decidedBy: "lead@example.com",
      onBehalfOf: "ann@example.com",
    });
    const { receipts } = await until(async () => {
      const r = await (await api(`/v1/runs/${started.runId}/receipts`)).json<{
        receipts: string[];
      }>();
      return r.receipts.length > 0 && r;
    }, "the receipt");
    expect(receiptPayload(receipts[0] ?? "")).toMatchObject({
      decision: "declined",
      decidedBy: "lead@example.com",
      onBehalfOf: "ann@example.com",
    });
    const keys = await (await SELF.fetch(`${BASE}/.well-known/receipt-keys.json`)).json();
    expect(await verifyReceiptChain(receipts, await importJwks(keys), { expectCount: 1 })).toEqual({
      ok: true,
      receipts: 1,
      threads: 1,
    });
  });

  it("a delegate never decides their own request, nor the request of the member they stand for", async () => {
    await clearAll();
    await delegate(
      { from: "ann@example.com", to: "lead@example.com", until: later() },
      "ann@example.com",
    );
    const annAsked = await startPending(BIG_REFUND, { requestedBy: "ann@example.com" });
    expect(await vote(annAsked, "lead@example.com")).toMatchObject({
      status: 403,
      json: { error: { code: "own_request" } },
    });
    const leadAsked = await startPending(BIG_REFUND, { requestedBy: "lead@example.com" });
    expect(await vote(leadAsked, "lead@example.com")).toMatchObject({
      status: 403,
      json: { error: { code: "own_request" } },
    });
  });

  it("an expired or ended delegation is refused (403 not_an_approver); a running one lets a member of another group stand in", async () => {
    await clearAll();
    const started = await startPending(BIG_REFUND);
    const made = await delegate(
      { from: "ann@example.com", to: "lead@example.com", until: later() },
      "ann@example.com",
    );
    // Its time ran out: moved into the past in storage (no waiting in a test).
    const stub = env.INBOXES.get(env.INBOXES.idFromName("~delegations"));
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec(
        "UPDATE delegations SET until = ? WHERE id = ?",
        Date.now() - 1000,
        made.json.id,
      );
    });
    expect(await vote(started, "lead@example.com")).toMatchObject({
      status: 403,
      json: { error: { code: "not_an_approver" } },
    });

    const again = await delegate(
      { from: "ann@example.com", to: "lead@example.com", until: later() },
      "ann@example.com",
    );
    expect(await end(again.json.id, "ann@example.com")).toMatchObject({ status: 200 });
    expect((await vote(started, "lead@example.com")).status).toBe(403);

    // A running delegation works across groups: ann (finance only) decides support-leads' request for lead.
    await delegate(
      { from: "lead@example.com", to: "ann@example.com", until: later() },
      "lead@example.com",
    );
    const deleteAccount = await startPending("Please delete my account");
    expect(await vote(deleteAccount, "ann@example.com")).toMatchObject({ status: 202 });
    const run = await waitForStatus(deleteAccount.runId, ["done"]);
    expect(run.decisions[0]).toMatchObject({
      decidedBy: "ann@example.com",
      onBehalfOf: "lead@example.com",
    });
  });

  it("the delegate's inbox shows the requests of the member they stand for while it runs", async () => {
    await clearAll();
    await delegate(
      { from: "ann@example.com", to: "lead@example.com", until: later() },
      "ann@example.com",
    );
    const started = await startPending(BIG_REFUND);
    const link = await api("/v1/approvers/links", {
      method: "POST",
      body: JSON.stringify({ approver: "lead@example.com" }),
    });
    const { url } = await link.json<{ url: string }>();
    const signin = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
    const cookie = (signin.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const html = await until(async () => {
      const page = await (await SELF.fetch(`${BASE}/inbox`, { headers: { cookie } })).text();
      return page.includes(started.request.id) && page;
    }, "the finance request on lead's page");
    expect(html).toContain("finance");
  });

  it("a member signed in to the inbox delegates and ends it from /inbox/delegations (forms, no script)", async () => {
    await clearAll();
    const link = await api("/v1/approvers/links", {
      method: "POST",
      body: JSON.stringify({ approver: "ann@example.com" }),
    });
    const { url } = await link.json<{ url: string }>();
    const signin = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
    const cookie = (signin.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const inbox = await (await SELF.fetch(`${BASE}/inbox`, { headers: { cookie } })).text();
    expect(inbox).toContain('href="/inbox/delegations"');
    const page = await (
      await SELF.fetch(`${BASE}/inbox/delegations`, { headers: { cookie } })
    ).text();
    expect(page).toContain('id="none"');
    expect(page).not.toContain("<script");
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const post = (body: Record<string, string>) =>
      SELF.fetch(`${BASE}/inbox/delegations`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(body).toString(),
      });

    expect(
      (await post({ csrf: "forged", to: "lead@example.com", until: later().slice(0, 16) })).status,
    ).toBe(403);
    const bad = await post({ csrf, to: "mallory@example.com", until: later().slice(0, 16) });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("not a member of any approver group");

    const made = await post({
      csrf,
      to: "lead@example.com",
      until: later().slice(0, 16),
      groups: "finance",
    });
    expect(made.status).toBe(200);
    expect(await made.text()).toContain("lead@example.com decides for you");
    const [given] = await list("ann@example.com");
    expect(given).toMatchObject({
      from: "ann@example.com",
      to: "lead@example.com",
      groups: ["finance"],
    });

    const ended = await post({ csrf, end: given?.id ?? "" });
    expect(ended.status).toBe(200);
    expect(await list("ann@example.com")).toEqual([]);
    // A page without a session is the sign-in page.
    expect((await SELF.fetch(`${BASE}/inbox/delegations`)).status).toBe(401);
  });

  it("a delegate decides through the batch route and the inbox's form too, in the seat of the member they stand for", async () => {
    await clearAll();
    await delegate(
      { from: "ann@example.com", to: "lead@example.com", until: later() },
      "ann@example.com",
    );
    const first = await startPending(BIG_REFUND);
    const second = await startPending(BIG_REFUND);
    const batch = await api("/v1/approvals/batch", {
      method: "POST",
      headers: { "x-toolnexus-user": "lead@example.com" },
      body: JSON.stringify({
        decisions: [
          {
            runId: first.runId,
            requestId: first.request.id,
            decision: "approve",
            argsHash: first.request.argsHash,
          },
        ],
      }),
    });
    expect(((await batch.json()) as Json).results[0]).toMatchObject({ status: 202, votes: 1 });
    expect((await getRun(first.runId)).requests[0]?.votes[0]).toMatchObject({
      decidedBy: "lead@example.com",
      onBehalfOf: "ann@example.com",
    });

    const link = await api("/v1/approvers/links", {
      method: "POST",
      body: JSON.stringify({ approver: "lead@example.com" }),
    });
    const { url } = await link.json<{ url: string }>();
    const signin = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
    const cookie = (signin.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const page = await until(async () => {
      const html = await (await SELF.fetch(`${BASE}/inbox`, { headers: { cookie } })).text();
      return html.includes(second.request.id) && html;
    }, "the request on lead's page");
    const decided = await SELF.fetch(`${BASE}/inbox/decide`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        csrf: /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "",
        runId: second.runId,
        requestId: second.request.id,
        decision: "approve",
        argsHash: second.request.argsHash,
      }).toString(),
    });
    expect(decided.status).toBe(200);
    expect((await getRun(second.runId)).requests[0]?.votes[0]).toMatchObject({
      decidedBy: "lead@example.com",
      onBehalfOf: "ann@example.com",
      channel: "inbox",
    });
  });
});
