/**
 * The approvals inbox in headless Chromium, against the real worker under `wrangler dev`:
 * an approver follows their sign-in link, sees two requests from two threads, approves
 * one, declines the other with a reason, and both runs finish.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { createClient, isFinished, isPending } from "../../scripts/lib/api.mjs";
import { RUNTIME_ERROR, startDevServer } from "../../scripts/lib/dev-server.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOT = "/tmp/inbox.png";
const SCREENSHOT_DONE = "/tmp/inbox-decided.png";

const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`inbox.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

let server;
let client;
let browser;

before(
  async () => {
    server = await startDevServer({ timeoutMs: 60_000 });
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
  await server?.stop();
});

async function suspended(input) {
  const { body } = await client.startRun({ agent: "support", input });
  const run = await client.waitFor(body.runId, isPending);
  return { runId: body.runId, threadId: body.threadId, request: run.pending };
}

test("inbox: sign in by link, approve one request and decline another with a reason", {
  timeout: 90_000,
}, async (t) => {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}`);
  try {
    const refund = await suspended("Refund order 42 for $120");
    const other = await suspended("Refund order 7 for $80");
    assert.notEqual(refund.threadId, other.threadId);
    const { url } = await client.approverLink("ann@example.com");
    t.diagnostic(`sign-in link: ${url}`);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 30_000,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
    });
    const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
    page.setDefaultTimeout(15_000);
    const response = await page.goto(url);
    assert.equal(response?.status(), 200);
    assert.equal(new URL(page.url()).pathname, "/inbox");
    assert.equal(await page.locator("#member").textContent(), "ann@example.com");

    // Both requests, from two threads, on one page (the projection may lag a moment).
    const card = (id) => page.locator(`section.item[data-request="${id}"]`);
    for (let i = 0; (await page.locator("section.item").count()) < 2 && i < 50; i += 1) {
      await new Promise((r) => setTimeout(r, 200));
      await page.reload();
    }
    await card(refund.request.id).getByText("Refund $120 on order 42?").waitFor();
    await card(other.request.id).getByText(other.request.prompt).waitFor();
    assert.match(await card(refund.request.id).textContent(), /UTC \(in 1[45] minutes\)/);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    await card(refund.request.id).getByRole("button", { name: "Approve" }).click();
    await page.locator("#notice").getByText("Approved: Refund $120 on order 42?").waitFor();
    assert.equal(await card(refund.request.id).count(), 0);

    await card(other.request.id).getByLabel("Reason for declining").fill("already refunded");
    await card(other.request.id).getByRole("button", { name: "Decline" }).click();
    await page
      .locator("#notice")
      .getByText(/^Declined: /)
      .waitFor();
    await page.locator("#decided").getByText("declined — already refunded").waitFor();
    await page.screenshot({ path: SCREENSHOT_DONE, fullPage: true });

    const refunded = await client.waitFor(refund.runId, isFinished);
    assert.equal(refunded.status, "done");
    assert.equal(refunded.text, "Done: Refunded $120 on order 42");
    assert.equal(refunded.decisions[0]?.channel, "inbox");
    assert.equal(refunded.decisions[0]?.decidedBy, "ann@example.com");
    const kept = await client.waitFor(other.runId, isFinished);
    assert.equal(kept.status, "done");
    assert.equal(kept.decisions[0]?.decision, "decline");
    assert.equal(kept.decisions[0]?.answer?.reason, "already refunded");
    assert.doesNotMatch(server.output(), RUNTIME_ERROR, server.tail());
  } catch (error) {
    error.message += `\n--- wrangler dev output (last lines) ---\n${server?.tail() ?? ""}`;
    throw error;
  }
});
