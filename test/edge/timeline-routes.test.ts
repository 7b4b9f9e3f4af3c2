// The run timeline wired into the edge (issue 29 §4): the inbox page for members of a group
// the run asked (others 404, no session the sign-in page), the signed view link (201, no-store;
// tampered or expired 410), the page-authenticated event streams, and stored text as text.
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { API_TOKEN, BASE, WEBHOOK_SECRET, api } from "../helpers/edge";
import { absentRunId, pendingRun, SseReader } from "../helpers/http";
import { createRunViewToken } from "../../src/edge/timeline/view-token";
import { RunViewLinkSchema } from "../../src/edge/timeline/schemas";
import { ApiRequestError, createApiClient } from "../../src/api-client";

const XSS = `<img src=x onerror=alert(1)><script>alert(2)</script>`;

async function signIn(approver: string): Promise<string> {
  const created = await api("/v1/approvers/links", {
    method: "POST",
    body: JSON.stringify({ approver }),
  });
  expect(created.status).toBe(201);
  const { url } = await created.json<{ url: string }>();
  const response = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
  expect(response.status).toBe(303);
  return (response.headers.get("set-cookie") ?? "").split(";")[0]!;
}

const page = (path: string, cookie?: string) =>
  SELF.fetch(`${BASE}${path}`, cookie ? { headers: { cookie } } : {});

async function viewLink(runId: string): Promise<{ url: string; expiresAt: string }> {
  const response = await api(`/v1/runs/${runId}/view-link`, { method: "POST" });
  expect(response.status).toBe(201);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return RunViewLinkSchema.strict().parse(await response.json());
}

/** A finance refund (quorum 2) whose input carries markup. */
async function financeRun() {
  return pendingRun(`Refund order 42 for $2500 ${XSS}`);
}

function expectTimelinePage(html: string, runId: string) {
  expect(html).toContain('id="timeline"');
  expect(html).toContain(runId);
  // Stored text is shown as text: escaped, never markup.
  expect(html).not.toContain("<img src=x");
  expect(html).not.toContain("<script>alert(2)");
  expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
}

describe("GET /inbox/runs/:runId", () => {
  it("a member of the group the run asked sees the timeline; its CSP allows only its nonce", async () => {
    const { runId } = await financeRun();
    const response = await page(`/inbox/runs/${runId}`, await signIn("ann@example.com"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = response.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toContain("connect-src 'self'");
    const html = await response.text();
    expectTimelinePage(html, runId);
    expect(html).toContain(`data-events="/inbox/runs/${runId}/events"`);
    // Its only script is the nonce'd inline one.
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts).toEqual([`<script nonce="${nonce}">`]);
  });

  it("no session: the sign-in page; another group's member and an unknown run: the same 404", async () => {
    const { runId } = await financeRun();
    const anonymous = await page(`/inbox/runs/${runId}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain("Sign in");

    const lead = await signIn("lead@example.com"); // support-leads: not asked by this run
    const other = await page(`/inbox/runs/${runId}`, lead);
    expect(other.status).toBe(404);
    const unknown = await page(`/inbox/runs/${absentRunId()}`, lead);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe(await other.text());
    expect((await page("/inbox/runs/no-dot-here", lead)).status).toBe(404);
  });

  it("its event stream: the member replays the run's events; others 404, no session 401", async () => {
    const { runId } = await financeRun();
    const ann = await signIn("ann@example.com");
    const stream = await page(`/inbox/runs/${runId}/events`, ann);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = new SseReader(stream);
    expect(await reader.until((f) => f.event === "pending")).toBeDefined();
    await reader.cancel();

    const lead = await page(`/inbox/runs/${runId}/events`, await signIn("lead@example.com"));
    expect(lead.status).toBe(404);
    expect((await lead.json<{ error: { code: string } }>()).error.code).toBe("run_not_found");
    const none = await page(`/inbox/runs/${runId}/events`);
    expect(none.status).toBe(401);
  });
});

describe("view links", () => {
  it("POST /v1/runs/:runId/view-link needs the API token; an unknown run is 404", async () => {
    const { runId } = await financeRun();
    const anonymous = await SELF.fetch(`${BASE}/v1/runs/${runId}/view-link`, { method: "POST" });
    expect(anonymous.status).toBe(401);
    const wrong = await api(`/v1/runs/${runId}/view-link`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}x` },
    });
    expect(wrong.status).toBe(401);
    const unknown = await api(`/v1/runs/${absentRunId()}/view-link`, { method: "POST" });
    expect(unknown.status).toBe(404);
    expect((await unknown.json<{ error: { code: string } }>()).error.code).toBe("run_not_found");
  });

  it("201 { url, expiresAt } valid 24 h; the link shows the timeline and streams its events", async () => {
    const { runId } = await financeRun();
    const before = Date.now();
    const { url, expiresAt } = await viewLink(runId);
    const ttl = Date.parse(expiresAt) - before;
    expect(ttl).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(24 * 3600_000 + 1000);
    const path = new URL(url).pathname;
    expect(url).toBe(`${BASE}${path}`);
    expect(path).toMatch(/^\/runs\/view\/v\./);
    const response = await page(path); // no session needed: the link is the credential
    expect(response.status).toBe(200);
    const html = await response.text();
    expectTimelinePage(html, runId);
    expect(html).toContain(`data-events="${path}/events"`);

    const stream = await page(`${path}/events`);
    expect(stream.status).toBe(200);
    const reader = new SseReader(stream);
    expect(await reader.until((f) => f.event === "pending")).toBeDefined();
    await reader.cancel();
  });

  it("a tampered, malformed or expired link is a 410 page (and a 410 stream)", async () => {
    const { runId, threadId } = await financeRun();
    const { url } = await viewLink(runId);
    const token = new URL(url).pathname.split("/").pop()!;
    const last = token.at(-1) === "A" ? "B" : "A";
    const tampered = `${token.slice(0, -1)}${last}`;
    const expired = (
      await createRunViewToken([WEBHOOK_SECRET], { threadId, runId }, Date.now() - 25 * 3600_000)
    ).token;
    for (const bad of [tampered, "v.nonsense", expired, "x".repeat(3000)]) {
      const response = await page(`/runs/view/${bad}`);
      expect(response.status).toBe(410);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await response.text()).not.toContain(runId);
      const stream = await page(`/runs/view/${bad}/events`);
      expect(stream.status).toBe(410);
    }
    expect(await (await page(`/runs/view/${expired}`)).text()).toContain("expired");
  });
});

describe("the typed API client", () => {
  it("links.view(runId) returns the view link; an unknown run rejects with 404", async () => {
    const client = createApiClient({
      baseUrl: BASE,
      token: API_TOKEN,
      fetch: (request: Request) => SELF.fetch(request),
    });
    const { runId } = await financeRun();
    const link = await client.links.view(runId);
    expect(new URL(link.url).pathname).toMatch(/^\/runs\/view\/v\./);
    expect((await page(new URL(link.url).pathname)).status).toBe(200);
    const failed = await client.links.view(absentRunId()).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ApiRequestError);
    expect(failed).toMatchObject({ status: 404 });
  });
});
