/**
 * A tiny callback receiver on 127.0.0.1 (random port): stands in for the approver's
 * system that a run's `callbackUrl` points at. Every POST is verified and queued.
 */
import { createServer } from "node:http";
import { verifyWebhook } from "./webhooks.mjs";

/**
 * @param {{ secrets: string[] }} options the NOTIFY_SECRET values (the worker signs with the first)
 * Resolves to `{ url, next(timeoutMs), close() }`; `next` yields the next notification not
 * handed out yet as `{ id, headers, body, json, verified: { ok, id?, reason? } }`.
 */
export async function startReceiver({ secrets }) {
  const items = [];
  const waiters = [];
  let cursor = 0;
  const hand = () => {
    while (waiters.length > 0 && cursor < items.length) {
      waiters.shift()(items[cursor++]);
    }
  };

  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const verified = verifyWebhook(secrets, req.headers, body);
      res.writeHead(verified.ok ? 204 : 401).end();
      const id = req.headers["webhook-id"];
      // A redelivery repeats the message: same webhook-id, same body. (Same id with another
      // body is NOT dropped: the demo model's request ids repeat across threads.)
      if (items.some((item) => item.id === id && item.body === body)) {
        return;
      }
      let json;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      items.push({ id, headers: req.headers, body, json, verified });
      hand();
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;

  return {
    url: `${origin}/hooks/toolnexus`,
    next(timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const waiter = (item) => {
          clearTimeout(timer);
          resolve(item);
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no notification reached ${origin} within ${timeoutMs / 1000}s`));
        }, timeoutMs);
        waiters.push(waiter);
        hand();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
