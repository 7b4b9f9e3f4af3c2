/**
 * The run timeline page (issue 29) in headless Chromium, against the real worker under
 * `wrangler dev`: a four-eyes refund (two of `finance`) whose amount an approver edits,
 * driven by the scripted model on 127.0.0.1 (scripts/lib/fake-model.mjs) so that the tool's
 * arguments carry a stored-XSS attempt. The page is opened while the run waits; the votes,
 * the edit and the final approval arrive by signed webhook, and the open page redraws itself
 * from the run's events to the decided, finished run. Then the same run by a signed view link,
 * and a tampered link.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { createClient, isFinished, isPending } from "../../scripts/lib/api.mjs";
import { RUNTIME_ERROR, startDevServer, TEST_VARS } from "../../scripts/lib/dev-server.mjs";
import { startFakeModel } from "../../scripts/lib/fake-model.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const REPORTS = fileURLToPath(new URL("../../.test-reports/", import.meta.url));
const SCREENSHOT = `${REPORTS}timeline.png`;
const SCREENSHOT_VIEW = `${REPORTS}timeline-view-link.png`;

/** Markup in a tool argument: it must show as text, run nothing and add no element. */
const XSS = `42</pre><script>window.__xss=1</script><img src=x onerror='window.__xss=2'>`;

const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`timeline.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

let model;
let server;
let client;
let browser;

before(
  async () => {
    model = await startFakeModel();
    server = await startDevServer({
      timeoutMs: 60_000,
      vars: { ...TEST_VARS, LLM_BASE_URL: `${model.url}/v1`, LLM_MODEL: "fake-model" },
    });
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
  await model?.close();
});

/** Console errors and uncaught exceptions of a page (a CSP violation is a console error too). */
function watchErrors(page) {
  const errors = [];
  page.on("console", (message) => {
    if (message.type() === "error") {
      errors.push(`console: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  return errors;
}

/** What every rendering of the decided run shows, and that the XSS attempt stayed text. */
async function checkDecidedTimeline(page, { runId, prompt }) {
  const timeline = page.locator("#timeline");
  assert.equal(await page.locator("#run-id").textContent(), runId);
  assert.equal(await page.locator("#run-status").textContent(), "done");
  // Turns: the call that asked for the refund, and the answer after it.
  assert.ok((await timeline.locator("li.row.model").count()) >= 2, "two model calls");
  const tool = timeline.locator("li.row.tool");
  assert.equal(await tool.count(), 1);
  assert.equal(await tool.locator(".label code").textContent(), "refund_order");
  const args = JSON.parse(await tool.locator("pre.args").textContent());
  assert.deepEqual(args, { orderId: XSS, amount: 2500 }, "the arguments the model asked with");
  assert.match(await tool.locator("pre.result").textContent(), /Refunded \$2000 on order 42/);
  assert.ok((await tool.locator("pre.result").textContent()).includes(XSS));

  const request = timeline.locator("li.row.request");
  assert.equal(await request.count(), 1);
  assert.ok((await request.locator(".label").textContent()).includes(prompt));
  assert.equal(await request.locator("summary").textContent(), "Asked finance");
  const votes = await request.locator("ul.votes > li").allTextContents();
  assert.equal(votes.length, 3, votes.join("\n"));
  assert.match(
    votes[0],
    /^ann@example\.com: approve via webhook at \+.*\(reset by a later edit\)$/,
  );
  assert.match(votes[1], /^bob: approve via webhook at \+.*, edited the arguments to /);
  assert.ok(votes[1].includes(`"amount":2000`), votes[1]);
  assert.doesNotMatch(votes[1], /reset/);
  assert.match(votes[2], /^ann@example\.com: approve via webhook at \+/);
  assert.match(
    await request.locator("p.decision").textContent(),
    /^Decided: approve by (ann@example\.com|bob) via webhook$/,
  );
  assert.match(await page.locator("#answer").textContent(), /^The tool said: /);

  // Stored XSS: the payload is on the page as text, and nothing of it became markup.
  assert.equal(await page.evaluate(() => window.__xss), undefined, "no injected script ran");
  assert.equal(await page.locator("script").count(), 1, "only the page's own nonce'd script");
  assert.equal(await page.locator("img").count(), 0, "no element injected");
  assert.ok((await page.locator("body").textContent()).includes(XSS));
}

/** Opens every collapsed part, so the screenshot shows the arguments, votes and decision. */
const openAll = (page) =>
  page.evaluate(() => {
    for (const details of document.querySelectorAll("details")) {
      details.open = true;
    }
  });

test("run timeline: quorum votes and an edit, live from the run's events, XSS as text", {
  timeout: 120_000,
}, async (t) => {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}`);
  mkdirSync(REPORTS, { recursive: true });
  try {
    const input = `call refund_order ${JSON.stringify({ orderId: XSS, amount: 2500 })}`;
    const { body } = await client.startRun({ agent: "support", input });
    const runId = body.runId;
    const pending = await client.waitFor(runId, isPending);
    const request = pending.pending;
    const prompt = `Refund $2500 on order ${XSS}?`;
    assert.equal(request.prompt, prompt);
    assert.deepEqual(request.data.approvers, { group: "finance", quorum: 2, editable: ["amount"] });
    t.diagnostic(`run ${runId} waits on ${request.id}`);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 30_000,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
    });
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors = watchErrors(page);

    // Signed in as ann (finance): the timeline of a run that asked her group.
    const { url: signIn } = await client.approverLink("ann@example.com");
    assert.equal((await page.goto(signIn))?.status(), 200);
    const response = await page.goto(`${server.url}/inbox/runs/${encodeURIComponent(runId)}`);
    assert.equal(response?.status(), 200);
    const csp = response?.headers()["content-security-policy"] ?? "";
    assert.match(csp, /script-src 'nonce-[A-Za-z0-9_-]{22}'/);
    assert.match(csp, /connect-src 'self'/);
    assert.equal(await page.locator("#run-status").textContent(), "pending");
    assert.equal(
      await page.locator("li.row.request p.decision").textContent(),
      "Waiting for a decision.",
    );
    assert.equal(await page.locator("li.row.tool").count(), 1);
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    // A marker a reload would wipe: what follows must reach this very document.
    await page.evaluate(() => {
      window.__sameDocument = true;
    });

    // Four eyes with an edit: ann approves, bob lowers the amount (resetting ann's vote),
    // ann approves the edited arguments — the quorum of two is met.
    const first = await client.decide(
      {
        runId,
        requestId: request.id,
        decision: "approve",
        decidedBy: "ann@example.com",
        argsHash: request.argsHash,
      },
      { expect: [202] },
    );
    assert.equal(first.body.votes, 1);
    const edit = await client.decide(
      {
        runId,
        requestId: request.id,
        decision: "approve",
        decidedBy: "bob@example.com",
        args: { orderId: XSS, amount: 2000 },
        argsHash: request.argsHash,
      },
      { expect: [202] },
    );
    assert.equal(edit.body.votes, 1, "the edit reset ann's vote; bob's is the first");
    const edited = (await client.getRun(runId)).requests[0];
    assert.notEqual(edited.argsHash, request.argsHash);
    const last = await client.decide(
      {
        runId,
        requestId: request.id,
        decision: "approve",
        decidedBy: "ann@example.com",
        argsHash: edited.argsHash,
      },
      { expect: [202] },
    );
    assert.equal(last.body.decision?.decision, "approve");
    const done = await client.waitFor(runId, isFinished);
    assert.equal(done.status, "done");

    // The open page redraws from the run's events: no reload, the same document.
    await page.locator("#run-status", { hasText: "done" }).waitFor();
    await page.locator("#answer").waitFor();
    assert.equal(await page.evaluate(() => window.__sameDocument), true, "not reloaded");
    assert.match(await page.locator("#live").textContent(), /^updated /);
    // The screenshot first: a failing check below still leaves it to look at.
    await openAll(page);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await checkDecidedTimeline(page, { runId, prompt });
    assert.deepEqual(errors, [], "no console errors");

    // The same run by a signed view link, in a browser context with no session.
    const link = await fetch(`${server.url}/v1/runs/${encodeURIComponent(runId)}/view-link`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.apiToken}` },
    });
    assert.equal(link.status, 201);
    const { url: viewUrl, expiresAt } = await link.json();
    assert.ok(Date.parse(expiresAt) > Date.now());
    const anonymous = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const viewer = await anonymous.newPage();
    viewer.setDefaultTimeout(15_000);
    const viewerErrors = watchErrors(viewer);
    assert.equal((await viewer.goto(viewUrl))?.status(), 200);
    await openAll(viewer);
    await viewer.screenshot({ path: SCREENSHOT_VIEW, fullPage: true });
    await checkDecidedTimeline(viewer, { runId, prompt });
    assert.deepEqual(viewerErrors, [], "no console errors on the view link's page");

    // One character of the token changed: a 410 page, not the run.
    const token = viewUrl.slice(viewUrl.lastIndexOf("/") + 1);
    const flipped = token.slice(0, 10) + (token[10] === "A" ? "B" : "A") + token.slice(11);
    const tampered = await viewer.goto(`${server.url}/runs/view/${flipped}`);
    assert.equal(tampered?.status(), 410);
    assert.equal(await viewer.locator("#timeline").count(), 0);
    assert.doesNotMatch(server.output(), RUNTIME_ERROR, server.tail());
  } catch (error) {
    error.message += `\n--- wrangler dev output (last lines) ---\n${server?.tail() ?? ""}`;
    throw error;
  }
});
