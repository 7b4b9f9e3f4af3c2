// Issue 37 item 4: another site's page may not write through a browser's session. The chat
// and AG-UI routes take JSON only (415 for a form or text/plain body, which a page can send
// cross-site without a preflight); the approval page and the inbox refuse an Origin that is
// neither this worker's nor in CORS_ORIGINS (403). Nothing is started or decided. A request
// with the API token carries its own credential: a backend proxy passing the browser's
// Origin along is served. (Chat and AG-UI with a Cloudflare Access identity, where a hostile
// Origin is 403: test/slack/browser-writes.test.ts.)
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { api, BASE, getRun } from "../helpers/edge";
import { startPending } from "../helpers/durable";
import { runAgentInput, userMessage } from "../helpers/chat";

const EVIL = "https://evil.test";

async function errorCode(response: Response): Promise<string> {
  return (await response.json<{ error: { code: string } }>()).error.code;
}

async function chatMessages(id: string): Promise<unknown[]> {
  const response = await api(`/v1/chat/support/${id}/messages`);
  return (await response.json<{ messages: unknown[] }>()).messages;
}

describe("cross-site writes to the browser routes", () => {
  it("chat: a text/plain or form body is 415 and starts nothing", async () => {
    const id = `xs-${crypto.randomUUID()}`;
    const body = JSON.stringify({ id, messages: [userMessage("refund $20 on order 42")] });
    const plain = await api("/v1/chat/support", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body,
    });
    expect(plain.status).toBe(415);
    expect(await errorCode(plain)).toBe("unsupported_media_type");
    const form = await api("/v1/chat/support", {
      method: "POST",
      headers: { origin: "https://app.test", "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    expect(form.status).toBe(415);
    expect(await chatMessages(id)).toEqual([]);

    // With the token (a backend proxy keeps the page's Origin), any origin is served.
    for (const origin of [BASE, "https://app.test", "http://127.0.0.1:5173"]) {
      const ok = await api("/v1/chat/support", {
        method: "POST",
        headers: { origin, "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify({
          id: `${id}-${origin}`,
          messages: [userMessage("where is order 42?")],
        }),
      });
      expect(ok.status).toBe(200);
      await ok.text();
    }
  });

  it("AG-UI: a text/plain body is 415", async () => {
    const body = JSON.stringify(
      runAgentInput(`xs-${crypto.randomUUID()}`, {
        messages: [{ id: "m", role: "user", content: "refund $20 on order 42" }],
      }),
    );
    const plain = await api("/v1/ag-ui/support", {
      method: "POST",
      headers: { "content-type": "text/plain;charset=UTF-8" },
      body,
    });
    expect(plain.status).toBe(415);
    expect(await errorCode(plain)).toBe("unsupported_media_type");
  });

  it("the approval page: a form posted from another site decides nothing (403)", async () => {
    const { runId } = await startPending("Please refund $120 on order 42");
    const { approvalUrl } = await getRun(runId);
    const form = (origin?: string) => ({
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(origin ? { origin } : {}),
      },
      body: new URLSearchParams({ decision: "approve" }).toString(),
    });
    const hostile = await SELF.fetch(approvalUrl!, form(EVIL));
    expect(hostile.status).toBe(403);
    expect(await hostile.text()).toContain("another site");
    expect((await getRun(runId)).status).toBe("pending");
    // A no-referrer page's form says `Origin: null`: refused unless Fetch Metadata says same-origin.
    const opaque = await SELF.fetch(approvalUrl!, form("null"));
    expect(opaque.status).toBe(403);
    const crossSite = form("null");
    crossSite.headers = { ...crossSite.headers, "sec-fetch-site": "cross-site" } as never;
    expect((await SELF.fetch(approvalUrl!, crossSite)).status).toBe(403);
    expect((await getRun(runId)).status).toBe("pending");
    // The page's own form decides: as Chromium sends it from our no-referrer page (Origin null,
    // Sec-Fetch-Site same-origin; test/browser/approval-page.test.mjs clicks it for real).
    const own = form("null");
    own.headers = { ...own.headers, "sec-fetch-site": "same-origin" } as never;
    expect((await SELF.fetch(approvalUrl!, own)).status).toBe(200);
  });

  it("the approval page's form with this worker's own Origin decides", async () => {
    const { runId } = await startPending("Please refund $120 on order 42");
    const { approvalUrl } = await getRun(runId);
    const response = await SELF.fetch(approvalUrl!, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: new URL(approvalUrl!).origin,
      },
      body: new URLSearchParams({ decision: "approve" }).toString(),
    });
    expect(response.status).toBe(200);
  });

  it("the inbox: a decision posted from another site is 403 before the session is read", async () => {
    const response = await SELF.fetch(`${BASE}/inbox/decide`, {
      method: "POST",
      headers: { origin: EVIL, "content-type": "application/x-www-form-urlencoded" },
      body: "decision=approve",
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("another site");
  });
});
