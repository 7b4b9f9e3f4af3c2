/**
 * Issue 42 item 1: POST /v1/approvals/batch and the inbox's batch form. Each item goes
 * through its thread's ledger on its own and answers its own status inside the 200.
 */
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { api, BASE, getRun, waitForStatus } from "../helpers/edge";
import { startPending, until } from "../helpers/durable";
import { argsHash } from "../../src/core/approvers/args-hash";

const BIG_REFUND = "Please refund $2000 on order 42"; // finance, quorum 2, amount editable
const SMALL_REFUND = "Please refund $80 on order 42"; // no rules: anyone with the link or token

type Result = {
  runId: string;
  requestId: string;
  status: number;
  code?: string;
  message?: string;
  duplicate?: boolean;
  votes?: number;
  needed?: number;
  argsHash?: string;
};

async function batch(decisions: unknown[], user?: string, init: RequestInit = {}) {
  const response = await api("/v1/approvals/batch", {
    method: "POST",
    body: JSON.stringify({ decisions }),
    ...init,
    headers: { ...(user ? { "x-toolnexus-user": user } : {}), ...init.headers },
  });
  return { status: response.status, json: (await response.json()) as any };
}

async function signIn(approver: string): Promise<string> {
  const created = await api("/v1/approvers/links", {
    method: "POST",
    body: JSON.stringify({ approver }),
  });
  const { url } = await created.json<{ url: string }>();
  const response = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
  return (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

const form = (cookie: string, body: URLSearchParams) =>
  SELF.fetch(`${BASE}/inbox/batch`, {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: body.toString(),
  });
const hidden = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";

describe("POST /v1/approvals/batch", { timeout: 30_000 }, () => {
  it("decides each item on its own: a stale argsHash is 409 args_changed inside the 200, and the others are recorded", async () => {
    const big = await startPending(BIG_REFUND);
    const small = await startPending(SMALL_REFUND);
    const other = await startPending(BIG_REFUND);
    const stale = argsHash({ orderId: "42", amount: 1 });

    const { status, json } = await batch(
      [
        {
          runId: big.runId,
          requestId: big.request.id,
          decision: "approve",
          argsHash: big.request.argsHash,
        },
        { runId: other.runId, requestId: other.request.id, decision: "approve", argsHash: stale },
        {
          runId: small.runId,
          requestId: small.request.id,
          decision: "decline",
          reason: "not today",
        },
        { runId: "th_nope.run_00000000000000000000", requestId: "req_x", decision: "approve" },
        { runId: "not-a-run", requestId: "req_y", decision: "approve" },
      ],
      "ann@example.com",
    );
    expect(status).toBe(200);
    const results = json.results as Result[];
    expect(results.map((r) => [r.requestId, r.status, r.code])).toEqual([
      [big.request.id, 202, undefined],
      [other.request.id, 409, "args_changed"],
      [small.request.id, 202, undefined],
      ["req_x", 404, "run_not_found"],
      ["req_y", 404, "run_not_found"],
    ]);
    // Pinned: the stale item's shape.
    expect(results[1]).toMatchObject({
      requestId: other.request.id,
      status: 409,
      code: "args_changed",
    });
    expect(results[1]?.argsHash).toBe(other.request.argsHash);
    expect(results[0]).toMatchObject({ votes: 1, needed: 2, duplicate: false });

    expect(
      (await getRun(big.runId)).requests[0]?.votes.map((v) => [v.decidedBy, v.channel]),
    ).toEqual([["ann@example.com", "webhook"]]);
    expect((await getRun(other.runId)).requests[0]?.votes).toEqual([]);
    const declined = await waitForStatus(small.runId, ["done"]);
    expect(declined.decisions[0]).toMatchObject({
      decision: "decline",
      decidedBy: "ann@example.com",
    });
    expect(declined.decisions[0]?.answer).toMatchObject({ ok: false, reason: "not today" });
  });

  it("a duplicate item in one batch is the ledger's duplicate (200); quorum, own request and membership hold per item", async () => {
    const a = await startPending(BIG_REFUND, { requestedBy: "carol@example.com" });
    const b = await startPending(BIG_REFUND);
    const item = (p: typeof a) => ({
      runId: p.runId,
      requestId: p.request.id,
      decision: "approve",
      argsHash: p.request.argsHash,
    });

    const carol = await batch([item(a), item(a), item(b)], "carol@example.com");
    expect(carol.status).toBe(200);
    expect(
      carol.json.results.map((r: Result) => [r.status, r.code ?? null, r.duplicate ?? null]),
    ).toEqual([
      [403, "own_request", null],
      [403, "own_request", null],
      [202, null, false],
    ]);

    const bob = await batch([item(b), item(b), item(a)], "bob@example.com");
    expect(bob.json.results.map((r: Result) => [r.status, r.duplicate ?? null, r.votes])).toEqual([
      [202, false, 2],
      [200, true, 2],
      [202, false, 1],
    ]);
    await waitForStatus(b.runId, ["done"]);
    expect((await getRun(a.runId)).status).toBe("pending");

    // Someone in no group: 403 for the ruled item, nothing recorded.
    const stranger = await batch([item(a)], "mallory@example.com");
    expect(stranger.json.results[0]).toMatchObject({ status: 403, code: "not_an_approver" });
    // Without x-toolnexus-user the caller is anonymous: a ruled request needs a member.
    const anonymous = await batch([item(a)]);
    expect(anonymous.json.results[0]).toMatchObject({ status: 400, code: "member_required" });
  });

  it("refuses a bad batch as a whole with a clear 4xx", async () => {
    const empty = await batch([], "ann@example.com");
    expect(empty.status).toBe(400);
    expect(empty.json.error.code).toBe("invalid_body");
    expect(empty.json.error.issues[0].path).toBe("decisions");

    const one = { runId: "th_a.run_00000000000000000000", requestId: "r", decision: "approve" };
    const many = await batch(
      Array.from({ length: 101 }, () => one),
      "ann@example.com",
    );
    expect(many.status).toBe(400);
    expect(many.json.error.code).toBe("too_many_decisions");

    const bad = await batch([{ ...one, decision: "maybe" }], "ann@example.com");
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_body");
    const extra = await batch([{ ...one, args: { amount: 1 } }], "ann@example.com");
    expect(extra.status).toBe(400);

    const noToken = await SELF.fetch(`${BASE}/v1/approvals/batch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decisions: [one] }),
    });
    expect(noToken.status).toBe(401);
    const notJson = await api("/v1/approvals/batch", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ decisions: [one] }),
    });
    expect(notJson.status).toBe(415);
    const badJson = await api("/v1/approvals/batch", { method: "POST", body: "{" });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as any).error.code).toBe("invalid_json");
  });
});

describe("the inbox's batch form", { timeout: 30_000 }, () => {
  it("checkboxes → a pre-flight table → confirm: approves each, without script", async () => {
    const a = await startPending(BIG_REFUND, { requestedBy: "cy@example.com" });
    const b = await startPending(BIG_REFUND);
    const ann = await signIn("ann@example.com");
    const inbox = await until(async () => {
      const html = await (await SELF.fetch(`${BASE}/inbox`, { headers: { cookie: ann } })).text();
      return html.includes(a.request.id) && html.includes(b.request.id) && html;
    }, "both requests in ann's inbox");
    expect(inbox).toContain(`name="select" value="${a.runId} ${a.request.id}" form="batch"`);
    expect(inbox).toContain('<form id="batch" method="POST" action="/inbox/batch">');
    expect(inbox).not.toContain("<script");

    const review = await form(
      ann,
      new URLSearchParams(<[string, string][]>[
        ["csrf", hidden(inbox, "csrf")],
        ["decision", "approve"],
        ["select", `${a.runId} ${a.request.id}`],
        ["select", `${b.runId} ${b.request.id}`],
        ["select", `${b.runId} req_not_there`],
      ]),
    );
    expect(review.status).toBe(200);
    const table = await review.text();
    expect(table).toContain('id="preflight"');
    for (const text of [
      "support",
      "refund_order",
      "&quot;amount&quot;: 2000",
      "cy@example.com",
      "0 of 2",
      "UTC (in ",
    ]) {
      expect(table).toContain(text);
    }
    expect(table).toContain("req_not_there");
    expect((await getRun(a.runId)).requests[0]?.votes).toEqual([]); // reviewing decides nothing

    const confirm = new URLSearchParams(<[string, string][]>[
      ["csrf", hidden(table, "csrf")],
      ["decision", "approve"],
      ["confirm", "1"],
      ...[...table.matchAll(/name="item" value="([^"]+)"/g)].map((m) => ["item", m[1] ?? ""]),
    ]);
    expect(confirm.getAll("item")).toHaveLength(2);
    const done = await form(ann, confirm);
    expect(done.status).toBe(200);
    const results = await done.text();
    expect(results).toContain("2 of 2 recorded");
    expect(results).toContain("Vote recorded (1 of 2 approvals)");
    for (const p of [a, b]) {
      expect(
        (await getRun(p.runId)).requests[0]?.votes.map((v) => [v.decidedBy, v.channel]),
      ).toEqual([["ann@example.com", "inbox"]]);
    }
  });

  it("declines the selected with one reason, refuses a form without a valid CSRF token, and a request outside the inbox", async () => {
    const a = await startPending(SMALL_REFUND);
    const ann = await signIn("ann@example.com");
    const inbox = await until(async () => {
      const html = await (await SELF.fetch(`${BASE}/inbox`, { headers: { cookie: ann } })).text();
      return html.includes(a.request.id) && html;
    }, "the request in ann's inbox");

    const forged = await form(
      ann,
      new URLSearchParams({
        csrf: "nope",
        decision: "decline",
        confirm: "1",
        item: `${a.runId} ${a.request.id} x`,
      }),
    );
    expect(forged.status).toBe(403);
    const none = await form(
      ann,
      new URLSearchParams({ csrf: hidden(inbox, "csrf"), decision: "decline" }),
    );
    expect(none.status).toBe(400);

    const done = await form(
      ann,
      new URLSearchParams(<[string, string][]>[
        ["csrf", hidden(inbox, "csrf")],
        ["decision", "decline"],
        ["confirm", "1"],
        ["reason", "batch says no"],
        ["item", `${a.runId} ${a.request.id} ${a.request.argsHash}`],
        ["item", `th_x.run_00000000000000000000 req_other -`],
      ]),
    );
    const html = await done.text();
    expect(html).toContain("1 of 2 recorded");
    expect(html).toContain("that request is not in your inbox");
    const run = await waitForStatus(a.runId, ["done"]);
    expect(run.decisions[0]).toMatchObject({
      decision: "decline",
      channel: "inbox",
      decidedBy: "ann@example.com",
    });
    expect(run.decisions[0]?.answer).toMatchObject({ reason: "batch says no" });
  });
});
