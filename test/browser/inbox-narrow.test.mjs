/**
 * The inbox at phone width and by keyboard (issue 42 §5, §6), in headless Chromium against
 * the real worker under `wrangler dev`: at 390 px wide neither the inbox (list and cards)
 * nor the dashboard scrolls sideways; every link, field and button is reached by Tab with a
 * visible focus ring; the filter form and the decline form submit with Enter; the dashboard
 * draws its charts as inline SVG. Screenshots go to .test-reports/ (the run's output).
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { createClient, isFinished, isPending } from "../../scripts/lib/api.mjs";
import { RUNTIME_ERROR, startDevServer } from "../../scripts/lib/dev-server.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const REPORTS = fileURLToPath(new URL("../../.test-reports/", import.meta.url));
const WIDTH = 390;

const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`inbox-narrow.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
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
  return { runId: body.runId, request: run.pending };
}

/** Nothing wider than the window: the page never scrolls sideways. */
async function assertNoSidewaysScroll(page, what) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= WIDTH, `${what}: scrollWidth ${width} > ${WIDTH}`);
}

/**
 * Presses Tab until focus comes round again; returns the ids (given here) of the elements
 * focused, and fails on any without a visible focus indicator.
 */
async function tabThrough(page, limit = 200) {
  await page.evaluate(() => {
    let n = 0;
    for (const el of document.querySelectorAll("a, button, input, select, summary, [tabindex]")) {
      el.dataset.k = String(n++);
    }
  });
  const seen = [];
  for (let i = 0; i < limit; i += 1) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) {
        return null;
      }
      const style = getComputedStyle(el);
      return {
        k: el.dataset.k,
        outline: style.outlineStyle !== "none" && style.outlineWidth !== "0px",
      };
    });
    if (!focused) {
      continue;
    }
    if (seen.includes(focused.k)) {
      break;
    }
    assert.ok(focused.outline, `element ${focused.k} has no visible focus`);
    seen.push(focused.k);
  }
  return seen;
}

/** Every visible interactive element of the page (what Tab must reach). */
function actionable(page) {
  return page.evaluate(() =>
    [
      ...document.querySelectorAll(
        "a[href], button, input:not([type=hidden]), select, summary, [tabindex='0']",
      ),
    ]
      .filter((el) => el.checkVisibility())
      .map((el) => el.dataset.k),
  );
}

test("inbox and dashboard at 390 px, by keyboard", { timeout: 150_000 }, async (t) => {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}`);
  mkdirSync(REPORTS, { recursive: true });
  try {
    // A long unbroken input (it is shown on the card), an editable finance refund, a small
    // one; one decided through the API and one declined by policy, for the dashboard.
    const long = await suspended(`Refund order 42 for $120 ${"x".repeat(240)}`);
    const finance = await suspended("Refund order 9 for $5000");
    const small = await suspended("Refund order 7 for $80");
    const decided = await suspended("Refund order 8 for $90");
    await client.decide({
      runId: decided.runId,
      requestId: decided.request.id,
      decision: "approve",
      decidedBy: "bob",
    });
    await client.startRun({ agent: "support", input: "Refund order 3 for $50000" });
    await client.waitFor(decided.runId, isFinished);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 30_000,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
    });
    const page = await browser.newPage({
      viewport: { width: WIDTH, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    page.setDefaultTimeout(15_000);
    const { url } = await client.approverLink("ann@example.com");
    await page.goto(url);
    const card = (id) => page.locator(`section.item[data-request="${id}"]`);
    for (let i = 0; (await page.locator("section.item").count()) < 3 && i < 50; i += 1) {
      await new Promise((r) => setTimeout(r, 200));
      await page.reload();
    }
    await card(finance.request.id).waitFor();
    await assertNoSidewaysScroll(page, "/inbox");
    await page.screenshot({ path: `${REPORTS}inbox-390.png`, fullPage: true });
    t.diagnostic(`screenshot: ${REPORTS}inbox-390.png`);

    // Every action is reached by Tab, each with a visible focus ring.
    const reached = await tabThrough(page);
    const wanted = await actionable(page);
    assert.deepEqual(
      wanted.filter((k) => !reached.includes(k)),
      [],
      "not reachable by Tab",
    );
    // Every field has a label.
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll("input:not([type=hidden]), select")]
        .filter((el) => el.labels.length === 0)
        .map((el) => el.outerHTML),
    );
    assert.deepEqual(unlabelled, []);

    // The filter form: type, Enter.
    await page.getByLabel("Text (prompt or arguments)").focus();
    await page.keyboard.type("ORDER 9");
    await page.keyboard.press("Enter");
    await page.waitForURL(/q=ORDER\+9/);
    assert.equal(await page.locator("section.item").count(), 1);
    await card(finance.request.id).waitFor();
    await assertNoSidewaysScroll(page, "/inbox filtered");

    // The edit form opens from the keyboard (Enter on its summary) and stays within the width.
    await card(finance.request.id).locator("summary").focus();
    await page.keyboard.press("Enter");
    await card(finance.request.id).getByLabel("amount").waitFor();
    await assertNoSidewaysScroll(page, "/inbox edit form open");

    // Decline by keyboard: the reason field, Enter.
    await page.goto(`${server.url}/inbox`);
    await card(small.request.id).getByLabel("Reason for declining").focus();
    await page.keyboard.type("duplicate request");
    await page.keyboard.press("Enter");
    await page
      .locator("#notice")
      .getByText(/^Declined: /)
      .waitFor();
    await assertNoSidewaysScroll(page, "/inbox decided list");
    // Approve by keyboard: Tab to the button, Enter.
    await card(long.request.id).getByRole("button", { name: "Approve" }).focus();
    await page.keyboard.press("Enter");
    await page
      .locator("#notice")
      .getByText(/^Approved: /)
      .waitFor();
    assert.equal(
      (await client.waitFor(small.runId, isFinished)).decisions[0]?.answer?.reason,
      "duplicate request",
    );
    assert.equal((await client.waitFor(long.runId, isFinished)).decisions[0]?.channel, "inbox");

    // The dashboard: inline SVG charts, no sideways scroll, reachable by keyboard from the inbox.
    await page.getByRole("link", { name: "Dashboard" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/inbox\/dashboard$/);
    assert.ok((await page.locator("svg").count()) >= 6);
    for (
      let i = 0;
      !(await page.content()).includes("<title>finance policy: 1</title>") && i < 50;
      i += 1
    ) {
      await new Promise((r) => setTimeout(r, 200));
      await page.reload();
    }
    assert.match(await page.content(), /<title>bob: 1<\/title>/);
    await assertNoSidewaysScroll(page, "/inbox/dashboard");
    const chart = await page.locator("#pending-groups").boundingBox();
    assert.ok(chart && chart.width <= WIDTH, "a chart fits the window");
    await page.screenshot({ path: `${REPORTS}inbox-dashboard-390.png`, fullPage: true });
    t.diagnostic(`screenshot: ${REPORTS}inbox-dashboard-390.png`);
    const dashReached = await tabThrough(page);
    const dashWanted = await actionable(page);
    assert.deepEqual(
      dashWanted.filter((k) => !dashReached.includes(k)),
      [],
      "dashboard: not reachable by Tab",
    );
    assert.doesNotMatch(server.output(), RUNTIME_ERROR, server.tail());
  } catch (error) {
    error.message += `\n--- wrangler dev output (last lines) ---\n${server?.tail() ?? ""}`;
    throw error;
  }
});
