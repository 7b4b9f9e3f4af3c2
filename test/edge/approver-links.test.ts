/**
 * Identity on the approval page (docs/architecture.md §6 "Identity", "Rules"): personal links from
 * POST /v1/runs/:runId/links decide as their approver; an anonymous link decides only a
 * request without rules (a ruled request's page is read-only and its POST 403). The page
 * shows the agent, the user's input, who asked, the run's metadata, the votes so far and the
 * expiry as UTC plus "in N minutes", with no script and the CSP kept.
 */
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { api, getRun, waitForStatus } from "../helpers/edge";
import { errorOf } from "../helpers/http";
import { startPending } from "../helpers/durable";

const BIG_REFUND = "Please refund $2000 on order 42";
const form = (body: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(body).toString(),
});

async function link(runId: string, body: Record<string, unknown>) {
  return api(`/v1/runs/${runId}/links`, { method: "POST", body: JSON.stringify(body) });
}

describe("personal approval links", { timeout: 30_000 }, () => {
  it("mints a link per approver, valid until the request expires; 403 for who may not decide", async () => {
    const { runId, request, run } = await startPending(BIG_REFUND, {
      requestedBy: "cy@example.com",
      metadata: { ticket: "T-7" },
    });
    const created = await link(runId, { requestId: request.id, approver: "Ann@Example.com" });
    expect(created.status).toBe(201);
    const { url, expiresAt } = (await created.json()) as { url: string; expiresAt: string };
    expect(url).toMatch(/^https:\/\/edge\.test\/approve\/p\./);
    expect(expiresAt).toBe(run.expiresAt);

    const outsider = await link(runId, { requestId: request.id, approver: "eve@example.com" });
    expect(outsider.status).toBe(403);
    expect((await errorOf(outsider)).code).toBe("not_an_approver");
    expect((await link(runId, { requestId: "apr_nope", approver: "ann@example.com" })).status).toBe(
      404,
    );
    expect((await link(runId, { requestId: request.id })).status).toBe(400);
    const anonymous = await api(`/v1/runs/${runId}/links`, {
      method: "POST",
      body: JSON.stringify({ requestId: request.id, approver: "ann@example.com" }),
      headers: { authorization: "Bearer nope" },
    });
    expect(anonymous.status).toBe(401);

    // The page: who asked, what for, the votes so far, the expiry in UTC and from now.
    const page = await SELF.fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    const html = await page.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<code id="agent">support</code>');
    expect(html).toContain(BIG_REFUND.replace("$", "$"));
    expect(html).toContain('<span id="requested-by">cy@example.com</span>');
    expect(html).toContain("T-7");
    expect(html).toMatch(/UTC \(in 1[45] minutes\)/);
    expect(html).toContain('<p id="votes">0 of 2 approvals</p>');
    expect(html).toContain("Deciding as <strong>ann@example.com</strong>");

    // Ann approves through her link: a vote as ann, through the page; Bob's link applies it.
    const voted = await SELF.fetch(url, form({ decision: "approve" }));
    expect(voted.status).toBe(200);
    expect(await voted.text()).toContain("1 of 2 approvals");
    const bobs = (await (
      await link(runId, { requestId: request.id, approver: "bob@example.com" })
    ).json()) as { url: string };
    expect((await SELF.fetch(bobs.url)).status).toBe(200);
    expect(await (await SELF.fetch(bobs.url)).text()).toContain("1 of 2 approvals");
    expect((await SELF.fetch(bobs.url, form({ decision: "approve" }))).status).toBe(200);
    const done = await waitForStatus(runId, ["done"]);
    expect(done.requests[0]?.votes).toMatchObject([
      { decidedBy: "ann@example.com", decision: "approve", channel: "page" },
      { decidedBy: "bob", decision: "approve", channel: "page" },
    ]);
    // Settled: no more links for it.
    expect(
      (await link(runId, { requestId: request.id, approver: "carol@example.com" })).status,
    ).toBe(409);
  });

  it("the requester gets no link to their own request", async () => {
    const { runId, request } = await startPending(BIG_REFUND, { requestedBy: "dan@example.com" });
    const own = await link(runId, { requestId: request.id, approver: "DAN@example.com" });
    expect(own.status).toBe(403);
    expect((await errorOf(own)).code).toBe("own_request");
  });

  it("an anonymous link only shows a request with rules: read-only page, its POST is 403", async () => {
    const { runId } = await startPending(BIG_REFUND);
    const { approvalUrl } = await getRun(runId);
    const html = await (await SELF.fetch(approvalUrl!)).text();
    expect(html).toContain('id="read-only"');
    expect(html).toContain("personal link");
    expect(html).not.toContain("<form");
    const post = await SELF.fetch(approvalUrl!, form({ decision: "approve" }));
    expect(post.status).toBe(403);
    const run = await getRun(runId);
    expect(run.status).toBe("pending");
    expect(run.requests[0]?.votes).toEqual([]);
  });

  it("an anonymous link still decides a request without rules", async () => {
    const { runId } = await startPending("Please refund $120 on order 42");
    const { approvalUrl } = await getRun(runId);
    expect((await SELF.fetch(approvalUrl!, form({ decision: "approve" }))).status).toBe(200);
    const done = await waitForStatus(runId, ["done"]);
    expect(done.decisions[0]).toMatchObject({ channel: "page", decidedBy: "anonymous link" });
  });
});
