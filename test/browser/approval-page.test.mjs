/**
 * End-to-end, against the real worker under `wrangler dev` (workerd: no eval, real
 * Durable Objects, queues and alarms), with Node's test runner: vitest's workers pool
 * runs inside workerd and cannot drive a browser.
 *
 * 1. The approval page in headless Chromium: the link from the signed notification
 *    renders the prompt, loading it decides nothing, Approve finishes the run.
 * 2. The `npm run check:dev` story: approve by a signed webhook.
 * 3. `toolnexus-edge/client` in the browser: start, stream, sign a decision, stream to done.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { createClient, isFinished } from "../../scripts/lib/api.mjs";
import { RUNTIME_ERROR, startDevServer } from "../../scripts/lib/dev-server.mjs";
import { approveFlow, startAndSuspend } from "../../scripts/lib/flows.mjs";
import { startReceiver } from "../../scripts/lib/receiver.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOT = "/tmp/approval-page.png";
const SCREENSHOT_DONE = "/tmp/approval-page-decided.png";

// The whole file is bounded, whatever hangs: then exit, which SIGKILLs wrangler's process group.
const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`approval-page.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

let server;
let receiver;
let client;
let browser;

before(
  async () => {
    server = await startDevServer({ timeoutMs: 60_000 });
    receiver = await startReceiver({ secrets: server.notifySecrets });
    client = createClient({
      baseUrl: server.url,
      apiToken: server.apiToken,
      webhookSecret: server.webhookSecrets[0],
    });
  },
  { timeout: 75_000 },
);

after(async () => {
  await browser?.close().catch(() => {});
  await receiver?.close();
  await server?.stop();
});

/** Runs `fn`; on failure, adds wrangler's last lines to the error. */
async function withServerLog(fn) {
  try {
    return await fn();
  } catch (error) {
    error.message += `\n--- wrangler dev output (last lines) ---\n${server?.tail() ?? "(not started)"}`;
    throw error;
  }
}

test("approval page: GET only renders, Approve in Chromium finishes the run", {
  timeout: 60_000,
}, async (t) => {
  assert.ok(
    existsSync(CHROMIUM),
    `no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`,
  );
  await withServerLog(async () => {
    const { runId, run, notification } = await startAndSuspend({
      client,
      receiver,
      input: "Refund order 42 for $120",
      say: (line) => t.diagnostic(line),
    });
    assert.equal(run.pending.prompt, "Refund $120 on order 42?");

    // launch() gives Chromium a fresh temporary --user-data-dir itself (and refuses one in `args`).
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 30_000,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
      page.setDefaultTimeout(15_000);
      const response = await page.goto(notification.approvalUrl);
      assert.equal(response?.status(), 200);
      await page.getByText("Refund $120 on order 42?").waitFor({ state: "visible" });
      assert.equal(await page.locator("h1").textContent(), "Approval requested");
      assert.match(await page.locator("#args").textContent(), /"amount": 120/);
      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      // A link scanner (or this browser) loading the page must not have decided anything.
      const afterLoad = await client.getRun(runId);
      assert.equal(afterLoad.status, "pending");
      assert.equal(afterLoad.pending?.id, run.pending.id);
      assert.deepEqual(afterLoad.decisions, []);

      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByText("Decision recorded: approved").waitFor({ state: "visible" });
      await page.screenshot({ path: SCREENSHOT_DONE, fullPage: true });
    } finally {
      await browser.close();
      browser = undefined;
    }

    const done = await client.waitFor(runId, isFinished);
    assert.equal(done.status, "done");
    assert.equal(done.text, "Done: Refunded $120 on order 42");
    assert.equal(done.decisions[0]?.channel, "page");
    assert.equal(done.decisions[0]?.decision, "approve");
  });
});

test("check:dev: start → pending → signed approve → done under wrangler dev", {
  timeout: 45_000,
}, async (t) => {
  await withServerLog(() => approveFlow({ client, receiver, say: (line) => t.diagnostic(line) }));
  assert.doesNotMatch(server.output(), RUNTIME_ERROR, server.tail());
});

test("toolnexus-edge/client in Chromium: start, stream to pending, signed approve, stream to done", {
  timeout: 60_000,
}, async (t) => {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}`);
  // The client as a web app would ship it: bundled for the browser (no Node built-ins).
  const { build } = await import("esbuild");
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL("../../src/api-client/index.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  const source = bundle.outputFiles[0].text;
  const clientBrowser = await chromium.launch({
    executablePath: CHROMIUM,
    timeout: 30_000,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
  });
  try {
    const page = await clientBrowser.newPage();
    await page.goto(`${server.url}/healthz`); // same origin as the API: no CORS involved
    const outcome = await withServerLog(() =>
      page.evaluate(
        async ({ source, token, secret }) => {
          const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
          const { createApiClient } = await import(url);
          const api = createApiClient({ baseUrl: location.origin, token });
          const { runId } = await api.runs.start({
            agent: "support",
            input: "Please refund $120 on order 42",
          });
          let request;
          for await (const event of api.runs.events(runId)) {
            if (event.event === "pending") {
              request = event.data.request;
              break;
            }
          }
          // delete_account has approver rules: a support lead decides.
          const decision = {
            runId,
            requestId: request.id,
            decision: "approve",
            decidedBy: "lead@example.com",
          };
          const accepted = await api.decisions.send(secret, decision); // WebCrypto HMAC
          const events = [];
          for await (const event of api.runs.events(runId)) {
            events.push(event.event);
          }
          const run = await api.runs.get(runId);
          return { duplicate: accepted.duplicate, events, status: run.status, text: run.text };
        },
        { source, token: server.apiToken, secret: server.webhookSecrets[0] },
      ),
    );
    t.diagnostic(`in the browser: ${JSON.stringify(outcome)}`);
    assert.equal(outcome.duplicate, false);
    assert.equal(outcome.events.at(-1), "done");
    assert.equal(outcome.status, "done");
    assert.match(outcome.text, /^Done: Refunded \$120 on order 42/);
  } finally {
    await clientBrowser.close().catch(() => {});
  }
});
