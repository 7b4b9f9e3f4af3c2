#!/usr/bin/env node
/**
 * `npm run chat`: the example chat page (examples/chat, React on `useChat`) against the demo
 * worker under `wrangler dev`, both started here. Open the printed address and try
 * "refund $120 on order 42" (you approve), "refund $2000 on order 42" (finance approves, in
 * the inbox: `npm run demo` prints sign-in links) or "where is order 42".
 */
import { startDevServer } from "./lib/dev-server.mjs";
import { startChatPage } from "./lib/chat-page.mjs";

const worker = await startDevServer({ timeoutMs: 90_000 });
const page = await startChatPage({
  target: worker.url,
  apiToken: worker.apiToken,
  port: Number(process.env.CHAT_PORT ?? 5173),
});
console.log(`worker: ${worker.url}\nchat:   ${page.url}\n(Ctrl-C stops both)`);
const stop = async () => {
  await page.stop();
  await worker.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
