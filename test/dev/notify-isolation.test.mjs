/**
 * One slow approver receiver does not delay anyone else's notification, under `wrangler dev`
 * (miniflare's queue broker runs one notify batch at a time): while a receiver still holds
 * its notification's request open, unanswered, a later run's healthy receiver gets its own.
 * Before, the healthy one waited until the slow one's 10 s bound ended its batch.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { createClient, isPending } from "../../scripts/lib/api.mjs";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";

const HARD_LIMIT_MS = 120_000;
setTimeout(() => {
  console.error(
    `notify-isolation.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`,
  );
  process.exit(1);
}, HARD_LIMIT_MS).unref();

let server;
let client;
let receiver;

/**
 * Paths under /slow/ are held open until `release()`; the rest answer 204. Records the
 * first arrival per path and whether a held request's connection was closed by the sender.
 */
async function startReceiver() {
  const arrived = new Map();
  const waiters = new Map();
  const held = [];
  const state = { slowClosedByWorker: false };
  const http = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (!arrived.has(req.url)) {
        arrived.set(req.url, true);
        waiters.get(req.url)?.();
      }
      if (!req.url.startsWith("/slow/")) {
        return res.writeHead(204).end();
      }
      res.on("close", () => {
        if (!res.writableEnded) {
          state.slowClosedByWorker = true; // the worker gave up on it (its 10 s bound)
        }
      });
      held.push(res);
    });
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${http.address().port}`;
  return {
    state,
    url: (path) => `${origin}${path}`,
    arrival: (path) =>
      arrived.has(path) ? Promise.resolve() : new Promise((r) => waiters.set(path, r)),
    release: () => {
      for (const res of held.splice(0)) {
        res.writeHead(204).end();
      }
    },
    close: () => {
      http.closeAllConnections();
      return new Promise((resolve) => http.close(resolve));
    },
  };
}

before(
  async () => {
    server = await startDevServer({ timeoutMs: 60_000 });
    client = createClient({ baseUrl: server.url, apiToken: server.apiToken });
    receiver = await startReceiver();
  },
  { timeout: 75_000 },
);

after(async () => {
  await receiver?.close();
  await server?.stop();
});

const start = (path) =>
  client.startRun({
    agent: "support",
    input: "Please refund $80 on order 42",
    callbackUrl: receiver.url(path),
  });

test("a healthy receiver is notified while a slow receiver still holds its request open", async () => {
  await start("/slow/1");
  await receiver.arrival("/slow/1"); // its batch is in flight, its receiver not answering

  const { body } = await start("/healthy/1");
  await client.waitFor(body.runId, isPending);
  await receiver.arrival("/healthy/1");
  assert.equal(
    receiver.state.slowClosedByWorker,
    false,
    "the healthy notification came only after the slow receiver's attempt was given up",
  );
  receiver.release(); // (its late 2xx, and what follows, are test/edge/notify-hold.test.ts's)
});
