/**
 * Issue 25 under `wrangler dev`, end to end: an agent whose MCP server needs OAuth sign-in
 * (test/fixtures/dev-oauth-worker.ts) against an authorization server and MCP server the
 * test starts on 127.0.0.1 (test/helpers/oauth-mcp-server.ts: the MCP SDK's own server auth
 * parts). The run goes `pending` on an `authorization` request; its URL is the edge's sign-in
 * link, which binds the browser and leads to the authorization server, whose redirect lands on
 * the edge's `/oauth/callback`; the run resumes and finishes. The subject's next run reuses
 * the token without asking, and an expired access token is refreshed without asking.
 */
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { createClient } from "../../scripts/lib/api.mjs";
import { startDevServer, TEST_VARS } from "../../scripts/lib/dev-server.mjs";
import { ROOT } from "../../scripts/lib/dev-vars.mjs";

const HARD_LIMIT_MS = 150_000;
setTimeout(() => {
  console.error(`mcp-sign-in.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

const SUBJECT = "ann@example.com";
const buildDir = path.join(ROOT, ".wrangler", `test-build-${process.pid}`);
let oauth;
let consent;
let server;
let api;

/** The TypeScript test helper, built for Node next to the repository's node_modules. */
async function importHelper(relative) {
  const { build } = await import("esbuild");
  mkdirSync(buildDir, { recursive: true });
  const outfile = path.join(buildDir, `${path.basename(relative, ".ts")}.mjs`);
  await build({
    entryPoints: [path.join(ROOT, relative)],
    bundle: true,
    packages: "external",
    format: "esm",
    platform: "node",
    outfile,
    logLevel: "silent",
  });
  return import(pathToFileURL(outfile).href);
}

before(
  async () => {
    const helper = await importHelper("test/helpers/oauth-mcp-server.ts");
    consent = helper.consent;
    oauth = await helper.startOAuthMcpServer();
    server = await startDevServer({
      timeoutMs: 90_000,
      config: "test/fixtures/wrangler.mcp.toml",
      script: "test/fixtures/dev-oauth-worker.ts",
      vars: {
        ...TEST_VARS,
        MCP_TOKEN_KEY: "whsec_ZGV2LW9ubHkgbWNwIHRva2VuIGtleSwgbm90IGZvciB1c2U=",
        DOCS_MCP_URL: oauth.url,
      },
    });
    api = createClient({ baseUrl: server.url, apiToken: server.apiToken });
  },
  { timeout: 110_000 },
);

after(async () => {
  await server?.stop();
  await oauth?.close();
  rmSync(buildDir, { recursive: true, force: true });
});

const finished = (run) => ["done", "incomplete", "failed", "cancelled"].includes(run.status);

async function runOnce(input) {
  const started = (await api.startRun({ agent: "docs", input, requestedBy: SUBJECT })).body;
  return api.waitFor(started.runId, (run) => finished(run) || run.status === "pending", {
    timeoutMs: 30_000,
  });
}

test("sign-in: pending authorization → the browser's redirect to /oauth/callback → the run resumes and finishes", async () => {
  const pending = await runOnce("who am I to the docs server?");
  assert.equal(
    pending.status,
    "pending",
    `run is ${pending.status}: ${JSON.stringify(pending.error)}`,
  );
  assert.equal(pending.pending.kind, "authorization");
  assert.match(pending.pending.prompt, /docs/);
  // The request shows the edge's sign-in link; opening it binds this browser (issue 37).
  const link = new URL(pending.pending.url);
  assert.equal(link.href.startsWith(`${server.url}/oauth/start?`), true, link.href);
  const start = await fetch(link, { redirect: "manual" });
  assert.equal(start.status, 302);
  const cookie = (start.headers.get("set-cookie") ?? "").split(";")[0];
  assert.match(cookie, /^toolnexus_oauth_/);
  const authorization = new URL(start.headers.get("location"));
  assert.equal(authorization.origin, oauth.origin);
  assert.equal(authorization.searchParams.get("redirect_uri"), `${server.url}/oauth/callback`);
  assert.equal(authorization.searchParams.get("code_challenge_method"), "S256");

  const landing = await consent(authorization.href);
  assert.ok(landing.startsWith(`${server.url}/oauth/callback?`), landing);
  // Another browser (no binding cookie) cannot complete it.
  assert.equal((await fetch(landing, { redirect: "manual" })).status, 403);
  const page = await fetch(landing, { redirect: "manual", headers: { cookie } });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /signed in to docs; you can close this tab/);

  const done = await api.waitFor(pending.runId, finished, { timeoutMs: 30_000 });
  assert.equal(done.status, "done", `run is ${done.status}: ${JSON.stringify(done.error)}`);
  assert.match(done.text, /^Found: whoami as \S+ with/);
  assert.equal(oauth.authorizations.length, 1);
  assert.deepEqual(
    oauth.tokenRequests.map((r) => r.grantType),
    ["authorization_code"],
  );
  // A second use of the same callback is refused and changes nothing.
  const again = await fetch(landing, { redirect: "manual", headers: { cookie } });
  assert.equal(again.status, 409);
});

test("the subject's next run reuses the token without asking", async () => {
  const done = await runOnce("who am I, again?");
  assert.equal(done.status, "done", `run is ${done.status}: ${JSON.stringify(done.error)}`);
  assert.match(done.text, /^Found: whoami as /);
  assert.equal(oauth.authorizations.length, 1, "nobody was asked to sign in again");
  assert.deepEqual(
    oauth.tokenRequests.map((r) => r.grantType),
    ["authorization_code"],
  );
});

test("an expired access token is refreshed without asking", async () => {
  oauth.expireAccessTokens();
  const done = await runOnce("who am I, after the token expired?");
  assert.equal(done.status, "done", `run is ${done.status}: ${JSON.stringify(done.error)}`);
  assert.match(done.text, /^Found: whoami as /);
  assert.equal(oauth.authorizations.length, 1, "nobody was asked to sign in again");
  assert.deepEqual(
    oauth.tokenRequests.map((r) => r.grantType),
    ["authorization_code", "refresh_token"],
  );
});
