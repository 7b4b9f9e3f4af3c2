// Issue 37, items 3 and 8: an MCP sign-in is the requester's. Its request shows our sign-in
// link, which binds the browser that opens it; a callback from any other browser (someone who
// saw the authorization URL and signed in with their own account) is 403 and records nothing.
// The link stays out of the timeline and view links. A callback with neither code nor error
// is 400; the decision keeps a hash of the one-time code, never the code; and without
// PUBLIC_URL only a loopback origin may sign in (a request's Host never picks redirect_uri).
import { describe, expect, it } from "vitest";
import { env, SELF } from "cloudflare:test";
import { fakeOAuthMcpFetch } from "../fixtures/fake-oauth-mcp";
import { DOCS_AGENT } from "../fixtures/oauth-agent";
import { sqlIn } from "../helpers/durable";
import { api, getRun, startRun, waitForStatus } from "../helpers/edge";
import { runOAuth } from "../../durable/tokens/run-oauth";
import type { RunRow } from "../../durable/storage/run-store";

async function startSignIn(requestedBy: string) {
  const started = await startRun({ agent: DOCS_AGENT, input: "find the answer", requestedBy });
  const run = await waitForStatus(started.runId, ["pending"]);
  return { ...started, request: run.pending! };
}

/** Opens a sign-in link in a browser: its binding cookie and the authorization URL. */
async function open(signInUrl: string) {
  const start = await SELF.fetch(signInUrl, { redirect: "manual" });
  expect(start.status).toBe(302);
  return {
    cookie: (start.headers.get("set-cookie") ?? "").split(";")[0]!,
    authorizationUrl: start.headers.get("location")!,
  };
}

/** Signs in at the fake authorization server: where it sends the browser back. */
async function consent(authorizationUrl: string): Promise<string> {
  const response = await fakeOAuthMcpFetch(authorizationUrl, { redirect: "manual" });
  expect(response.status).toBe(302);
  return response.headers.get("location")!;
}

const callback = (url: string, cookie?: string) =>
  SELF.fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });

/** An SSE body read until its first `pending` event has arrived whole, then dropped. */
async function untilPending(response: Response): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/event: pending\ndata: .*\n\n/.test(text)) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    text += value;
  }
  await reader.cancel().catch(() => {});
  return text;
}

describe("an MCP sign-in is bound to its requester", () => {
  it("a callback from a browser that did not open the sign-in link is 403 and records nothing", async () => {
    const { runId, threadId, request } = await startSignIn(`ann-${crypto.randomUUID()}`);
    expect(new URL(request.url!).pathname).toBe("/oauth/start");
    const ann = await open(request.url!);
    // Mallory got hold of the authorization URL (state and all) and signs in with her account.
    const landing = await consent(ann.authorizationUrl);
    for (const cookie of [undefined, "toolnexus_oauth_x=forged"]) {
      const stolen = await callback(landing, cookie);
      expect(stolen.status).toBe(403);
      expect(await stolen.text()).toContain("Nothing was recorded");
    }
    // A link this edge did not sign does not bind anything.
    const forged = new URL(request.url!);
    forged.searchParams.set("sig", "AAAA");
    expect((await SELF.fetch(forged.href, { redirect: "manual" })).status).toBe(400);
    expect(await sqlIn(threadId, "SELECT * FROM decisions")).toEqual([]);
    expect((await getRun(runId)).status).toBe("pending");

    // Ann's own browser completes it.
    const own = await callback(await consent(ann.authorizationUrl), ann.cookie);
    expect(own.status).toBe(200);
    expect((await waitForStatus(runId, ["done", "failed"])).status).toBe("done");
  });

  it("the timeline's view link and its events leave the sign-in link out", async () => {
    const { runId, request } = await startSignIn(`bea-${crypto.randomUUID()}`);
    const { authorizationUrl } = await open(request.url!);
    const state = new URL(authorizationUrl).searchParams.get("state")!;
    const link = await api(`/v1/runs/${runId}/view-link`, { method: "POST" });
    expect(link.status).toBe(201);
    const { url } = await link.json<{ url: string }>();
    const page = await (await SELF.fetch(url)).text();
    const events = await untilPending(await SELF.fetch(`${url}/events`));
    expect(events).toContain(request.id);
    for (const seen of [page, events]) {
      expect(seen).not.toContain("/oauth/start");
      expect(seen).not.toContain(state);
      expect(seen).not.toContain(encodeURIComponent(state));
    }
  });

  it("A2A shows the sign-in link to the requester only", async () => {
    const subject = `dee-${crypto.randomUUID()}@example.com`;
    const { runId } = await startSignIn(subject);
    const task = async (user: string) => {
      const response = await SELF.fetch("https://edge.test/a2a", {
        method: "POST",
        headers: {
          authorization: "Bearer test-token",
          "content-type": "application/json",
          "x-toolnexus-user": user,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: runId } }),
      });
      return response.text();
    };
    expect(await task(subject.toUpperCase())).toContain("/oauth/start");
    const other = await task("mallory@example.com");
    expect(other).toContain("auth-required");
    expect(other).not.toContain("/oauth/start");
  });

  it("a callback with neither code nor error is 400; the decision keeps the code's hash only", async () => {
    const { runId, threadId, request } = await startSignIn(`cy-${crypto.randomUUID()}`);
    const browser = await open(request.url!);
    const landing = new URL(await consent(browser.authorizationUrl));
    const empty = new URL(landing);
    empty.searchParams.delete("code");
    const incomplete = await callback(empty.href, browser.cookie);
    expect(incomplete.status).toBe(400);
    expect(await sqlIn(threadId, "SELECT * FROM decisions")).toEqual([]);

    expect((await callback(landing.href, browser.cookie)).status).toBe(200);
    expect((await waitForStatus(runId, ["done", "failed"])).status).toBe("done");
    const code = landing.searchParams.get("code")!;
    const [decision] = await sqlIn(threadId, "SELECT answer FROM decisions");
    expect(String(decision!.answer)).not.toContain(code);
    expect(String(decision!.answer)).toContain("sha256");
    expect(JSON.stringify(await getRun(runId, "?transcript=1"))).not.toContain(code);
  });

  it("without PUBLIC_URL, the Host a run was started on never becomes the redirect_uri", () => {
    const bare = { ...env, PUBLIC_URL: undefined } as unknown as object;
    const run = (publicUrl: string) =>
      ({ runId: "th_a.run_1", threadId: "th_a", requestedBy: "ann", publicUrl }) as RunRow;
    const mcp = { docs: { url: "https://docs.test/mcp", oauth: {} } };
    expect(() => runOAuth(bare, run("https://evil.test"), mcp)).toThrow(/PUBLIC_URL/);
    const local = runOAuth(bare, run("http://127.0.0.1:8787"), mcp);
    expect(JSON.stringify(local.mcp)).toContain("http://127.0.0.1:8787/oauth/callback");
  });
});
