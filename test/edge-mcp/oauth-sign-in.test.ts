// MCP sign-in at the edge (issue 25 §1): an agent whose MCP server needs OAuth suspends on an
// `authorization` request; the browser comes back to GET /oauth/callback, which records the
// answer through the ledger (channel `oauth`) and resumes the run; the tokens live encrypted in
// the subject's TokenObject and are reused by the subject's next run. The server is the
// in-worker fake of test/fixtures/fake-oauth-mcp.ts (PKCE checked, codes good once).
import { beforeEach, describe, expect, it } from "vitest";
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { fakeOAuth, fakeOAuthMcpFetch, SEARCH_RESULT } from "../fixtures/fake-oauth-mcp";
import { DOCS_AGENT } from "../fixtures/oauth-agent";
import { fixtureState } from "../fixtures/mcp-edge-worker";
import { eventsOf, sqlIn } from "../helpers/durable";
import { BASE, getRun, startRun, waitForStatus } from "../helpers/edge";

async function startSignIn(requestedBy: string) {
  const started = await startRun({ agent: DOCS_AGENT, input: "find the answer", requestedBy });
  const run = await waitForStatus(started.runId, ["pending"]);
  return { ...started, run, request: run.pending! };
}

/** The requester's browser: the cookie its sign-in link set (issue 37: it binds the callback). */
let browser = "";

/** Opens the request's sign-in link (our /oauth/start): the authorization URL it leads to. */
async function openSignIn(signInUrl: string): Promise<string> {
  expect(new URL(signInUrl).pathname).toBe("/oauth/start");
  const start = await SELF.fetch(signInUrl, { redirect: "manual" });
  expect(start.status).toBe(302);
  browser = (start.headers.get("set-cookie") ?? "").split(";")[0]!;
  expect(browser).toMatch(/^toolnexus_oauth_/);
  return start.headers.get("location")!;
}

/** What the person's browser does: open the sign-in link, consent, and be sent to the callback. */
async function consent(signInUrl: string): Promise<string> {
  const response = await fakeOAuthMcpFetch(await openSignIn(signInUrl), { redirect: "manual" });
  expect(response.status).toBe(302);
  return response.headers.get("location")!;
}

const callback = (url: string, cookie = browser) =>
  SELF.fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });

async function tokenRows(subject: string) {
  const stub = env.MCP_TOKENS.get(env.MCP_TOKENS.idFromName(subject));
  return runInDurableObject(stub, (_instance, state) =>
    state.storage.sql.exec("SELECT server, iv, data FROM oauth_records").toArray(),
  );
}

const decoded = (bytes: ArrayBuffer) => new TextDecoder("latin1").decode(new Uint8Array(bytes));

beforeEach(() => {
  fakeOAuth.deny = false;
  fakeOAuth.loseNextTokenAnswer = false;
  fakeOAuth.lifetimeSeconds = 3600;
});

describe("MCP sign-in at the edge", () => {
  it("suspends on an authorization request, resumes from the callback, and keeps the token out of every view", async () => {
    const subject = `ann-${crypto.randomUUID()}@example.com`;
    const { runId, threadId, request } = await startSignIn(subject);
    expect(request).toMatchObject({ kind: "authorization", data: { server: "docs" } });
    expect(request.prompt).toContain("docs");
    const authorizationUrl = new URL(await openSignIn(request.url!));
    // The default redirectUrl: the edge's own callback at PUBLIC_URL.
    expect(authorizationUrl.searchParams.get("redirect_uri")).toBe(`${BASE}/oauth/callback`);
    // A sign-in is the requester's own step: no inbox row, so no approver group or Slack sees it.
    expect(await sqlIn(threadId, "SELECT * FROM inbox_requests")).toEqual([]);
    expect(await sqlIn(threadId, "SELECT * FROM inbox_outbox")).toEqual([]);

    const location = await consent(request.url!);
    expect(location.startsWith(`${BASE}/oauth/callback?`)).toBe(true);
    const page = await callback(location);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("signed in to docs; you can close this tab");

    const done = await waitForStatus(runId, ["done", "failed"]);
    expect(done.status).toBe("done");
    expect(done.text).toBe(`Found: ${SEARCH_RESULT}`);
    const [decision] = await sqlIn(
      threadId,
      "SELECT * FROM decisions WHERE request_id = ?",
      request.id,
    );
    expect(decision).toMatchObject({ channel: "oauth", decided_by: subject, decision: "approve" });
    expect(await sqlIn(threadId, "SELECT * FROM inbox_requests")).toEqual([]);

    // The tokens the server issued never show: not in the run view, its transcript, its events,
    // the stored messages, nor in clear in the token object's storage.
    const issued = [...fakeOAuth.accessTokens, ...fakeOAuth.refreshTokens];
    expect(issued.length).toBeGreaterThan(0);
    const views = JSON.stringify([
      await getRun(runId, "?transcript=1"),
      await eventsOf(runId),
      await sqlIn(threadId, "SELECT body FROM messages"),
      await sqlIn(threadId, "SELECT * FROM decisions"),
      fixtureState.notifications,
    ]);
    const rows = await tokenRows(subject);
    expect(rows).toHaveLength(1);
    const stored = decoded(rows[0]!.data as ArrayBuffer);
    for (const token of issued) {
      expect(views).not.toContain(token);
      expect(stored).not.toContain(token);
    }

    // The same callback again: 409, and nothing more is recorded.
    const again = await callback(location);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already used");
    expect(await sqlIn(threadId, "SELECT * FROM decisions")).toHaveLength(1);

    // The subject's next run (another thread) reuses the token: no sign-in, no new code.
    const authorizeCalls = fakeOAuth.authorizeCalls;
    const exchanges = fakeOAuth.codeExchanges;
    const next = await startRun({ agent: DOCS_AGENT, input: "again", requestedBy: subject });
    const nextDone = await waitForStatus(next.runId, ["done", "failed", "pending"]);
    expect(nextDone.status).toBe("done");
    expect(nextDone.text).toBe(`Found: ${SEARCH_RESULT}`);
    expect(fakeOAuth.authorizeCalls).toBe(authorizeCalls);
    expect(fakeOAuth.codeExchanges).toBe(exchanges);
  });

  it("refreshes an expired access token for the subject's next run without asking", async () => {
    // A token that lives 1 s is past the kernel's 5 s safety margin at once: the next use refreshes.
    fakeOAuth.lifetimeSeconds = 1;
    const subject = `dan-${crypto.randomUUID()}`;
    const { runId, request } = await startSignIn(subject);
    expect((await callback(await consent(request.url!))).status).toBe(200);
    expect((await waitForStatus(runId, ["done", "failed"])).status).toBe("done");
    fakeOAuth.lifetimeSeconds = 3600;
    const authorizeCalls = fakeOAuth.authorizeCalls;
    const refreshes = fakeOAuth.refreshes;
    const next = await startRun({ agent: DOCS_AGENT, input: "again", requestedBy: subject });
    const done = await waitForStatus(next.runId, ["done", "failed", "pending"]);
    expect(done.status).toBe("done");
    expect(done.text).toBe(`Found: ${SEARCH_RESULT}`);
    expect(fakeOAuth.refreshes).toBeGreaterThan(refreshes);
    expect(fakeOAuth.authorizeCalls).toBe(authorizeCalls);
  });

  it("refuses a made-up or altered state with 400 and writes nothing", async () => {
    const { runId, threadId, request } = await startSignIn(`bob-${crypto.randomUUID()}`);
    const location = new URL(await consent(request.url!));
    const state = location.searchParams.get("state")!;
    const [payload, mac] = state.split(".");
    const flipped = mac!.startsWith("A") ? `B${mac!.slice(1)}` : `A${mac!.slice(1)}`;
    const attempts = ["made-up", `${payload}.${flipped}`, `${payload!.slice(0, -2)}xx.${mac}`, ""];
    for (const bad of attempts) {
      const url = new URL(location);
      url.searchParams.set("state", bad);
      const response = await callback(url.href);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("Nothing was recorded");
    }
    const missing = new URL(location);
    missing.searchParams.delete("state");
    expect((await callback(missing.href)).status).toBe(400);
    expect(await sqlIn(threadId, "SELECT * FROM decisions")).toEqual([]);
    expect((await getRun(runId)).status).toBe("pending");
    // The real one still works afterwards.
    expect((await callback(location.href)).status).toBe(200);
    expect((await waitForStatus(runId, ["done", "failed"])).status).toBe("done");
  });

  it("declines the request when the person refuses (?error=access_denied)", async () => {
    const subject = `carol-${crypto.randomUUID()}`;
    const { runId, threadId, request } = await startSignIn(subject);
    fakeOAuth.deny = true;
    const exchanges = fakeOAuth.codeExchanges;
    const location = await consent(request.url!);
    expect(new URL(location).searchParams.get("error")).toBe("access_denied");
    const page = await callback(location);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("authorization denied: access_denied");
    const [decision] = await sqlIn(
      threadId,
      "SELECT * FROM decisions WHERE request_id = ?",
      request.id,
    );
    expect(decision).toMatchObject({ channel: "oauth", decision: "decline", decided_by: subject });
    expect(JSON.parse(String(decision!.answer))).toMatchObject({
      reason: "authorization denied: access_denied",
    });
    const done = await waitForStatus(runId, ["done", "failed"]);
    expect(done.status).toBe("done");
    expect(done.text).toContain("Could not search");
    expect(done.text).toContain("authorization denied: access_denied");
    // No code was exchanged, so no token was issued for this sign-in.
    expect(fakeOAuth.codeExchanges).toBe(exchanges);
    expect((await callback(location)).status).toBe(409);
  });

  it("a redemption that dies mid-exchange loses nothing: the callback fails and records nothing, the run still waits, its link works again", async () => {
    const subject = `dan-${crypto.randomUUID()}@example.com`;
    const { runId, threadId, request } = await startSignIn(subject);
    // The token endpoint takes the code; its answer is lost (the redeemer died mid-exchange).
    fakeOAuth.loseNextTokenAnswer = true;
    const exchanges = fakeOAuth.codeExchanges;
    const page = await callback(await consent(request.url!));
    expect(fakeOAuth.codeExchanges).toBe(exchanges + 1);
    expect(page.status).toBe(502);
    expect(await page.text()).toContain("open the sign-in link again");
    // Nothing recorded: the run still waits on the same sign-in; no tokens were kept.
    expect(await sqlIn(threadId, "SELECT * FROM decisions")).toEqual([]);
    const waiting = await getRun(runId);
    expect(waiting).toMatchObject({ status: "pending", pending: { id: request.id } });

    // The person opens the link again: a new code, redeemed at the callback, then the run.
    const again = await callback(await consent(request.url!));
    expect(again.status).toBe(200);
    // The tokens were stored before the answer was recorded (so no run can lose them).
    expect(await tokenRows(subject)).toHaveLength(1);
    const done = await waitForStatus(runId, ["done", "failed"]);
    expect(done.status).toBe("done");
    expect(done.text).toBe(`Found: ${SEARCH_RESULT}`);
    expect(fakeOAuth.codeExchanges).toBe(exchanges + 2);
  });

  it("a code that is used up is refused at the callback with 400, nothing recorded", async () => {
    const subject = `eve-${crypto.randomUUID()}@example.com`;
    const { threadId, request } = await startSignIn(subject);
    const location = await consent(request.url!);
    fakeOAuth.codes.set(new URL(location).searchParams.get("code")!, "used");
    const page = await callback(location);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("did not complete: token endpoint:");
    expect(await sqlIn(threadId, "SELECT * FROM decisions")).toEqual([]);
  });
});
