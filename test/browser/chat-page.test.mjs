/**
 * The example chat page (examples/chat: React on `useChat`) in headless Chromium against the
 * real worker under `wrangler dev`: a refund's approval card, Approve, the refund confirmed;
 * then a tab closed while the approval is pending, the request approved from the inbox by
 * an approver, and the reopened tab showing the finished answer.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { createClient, isFinished } from "../../scripts/lib/api.mjs";
import { startChatPage } from "../../scripts/lib/chat-page.mjs";
import { RUNTIME_ERROR, startDevServer } from "../../scripts/lib/dev-server.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const HARD_LIMIT_MS = 200_000;
setTimeout(() => {
  console.error(`chat-page.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

let server;
let page;
let browser;
let client;

before(
  async () => {
    assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}`);
    server = await startDevServer({ timeoutMs: 60_000 });
    page = await startChatPage({ target: server.url, apiToken: server.apiToken });
    client = createClient({
      baseUrl: server.url,
      apiToken: server.apiToken,
      webhookSecret: server.webhookSecrets[0],
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 30_000,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
    });
  },
  { timeout: 100_000 },
);

after(async () => {
  await browser?.close().catch(() => {});
  await page?.stop();
  await server?.stop();
});

async function openChat(url) {
  const tab = await browser.newPage({ viewport: { width: 900, height: 1000 } });
  tab.setDefaultTimeout(20_000);
  await tab.goto(url);
  await tab.locator("#status").getByText("ready").waitFor();
  return tab;
}

async function ask(tab, text) {
  await tab.getByLabel("Message").fill(text);
  await tab.getByRole("button", { name: "Send" }).click();
  const card = tab.getByTestId("approval-card");
  await card.getByText("Refund $120 on order 42?").waitFor();
  return card;
}

test("chat page: the approval card, Approve, the refund confirmed", {
  timeout: 60_000,
}, async () => {
  try {
    const tab = await openChat(page.url);
    const card = await ask(tab, "refund $120 on order 42");
    await card.getByRole("button", { name: "Approve" }).click();
    await tab.getByTestId("tool-output").getByText("Refunded $120 on order 42").waitFor();
    await tab.getByText("Done: Refunded $120 on order 42").waitFor();
    await tab.screenshot({ path: "/tmp/chat-approved.png", fullPage: true });
    await tab.close();
    assert.doesNotMatch(server.output(), RUNTIME_ERROR, server.tail());
  } catch (error) {
    error.message += `\n--- wrangler dev output (last lines) ---\n${server?.tail() ?? ""}`;
    throw error;
  }
});

test("chat page: closed while pending, approved in the inbox, reopened finished", {
  timeout: 90_000,
}, async () => {
  try {
    const tab = await openChat(page.url);
    await ask(tab, "refund $120 on order 42");
    const url = tab.url();
    assert.match(url, /[?&]chat=/);
    await tab.close();

    // An approver signs in to the inbox and approves it there.
    const { url: signIn } = await client.approverLink("ann@example.com");
    const inbox = await browser.newPage();
    inbox.setDefaultTimeout(20_000);
    await inbox.goto(signIn);
    const card = inbox
      .locator("section.item")
      .filter({ hasText: "Refund $120 on order 42?" })
      .first();
    for (let i = 0; (await card.count()) === 0 && i < 50; i += 1) {
      await new Promise((r) => setTimeout(r, 200));
      await inbox.reload();
    }
    const requestId = await card.getAttribute("data-request");
    await card.getByRole("button", { name: "Approve" }).click();
    await inbox.locator("#notice").getByText("Approved: Refund $120 on order 42?").waitFor();
    await inbox.close();

    // The conversation's messages hold the assistant's answer once its run has finished.
    const chatId = new URL(url).searchParams.get("chat");
    const stored = () =>
      fetch(`${page.url}/v1/chat/support/${chatId}/messages`).then((r) => r.json());
    let messages = await stored();
    for (let i = 0; messages.messages.length < 2 && i < 100; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      messages = await stored();
    }
    const run = await client.waitFor(messages.messages[1].id.slice(2), isFinished);
    assert.equal(run.decisions[0]?.channel, "inbox");
    assert.equal(run.decisions[0]?.requestId, requestId);

    const reopened = await openChat(url);
    await reopened.getByTestId("tool-output").getByText("Refunded $120 on order 42").waitFor();
    await reopened.getByText("Done: Refunded $120 on order 42").waitFor();
    assert.equal(await reopened.getByTestId("approval-card").count(), 0);
    await reopened.screenshot({ path: "/tmp/chat-reopened.png", fullPage: true });
    await reopened.close();
  } catch (error) {
    error.message += `\n--- wrangler dev output (last lines) ---\n${server?.tail() ?? ""}`;
    throw error;
  }
});
