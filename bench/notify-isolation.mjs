/**
 * A slow approver receiver and everyone else's notifications, under `wrangler dev` (the real
 * queue broker: one batch per queue at a time). One callbackUrl hangs for 10 s; once it has
 * its POST, a second run with a healthy callbackUrl starts, and we time from that run's start
 * to its notification's arrival. Baseline in the same run: the same healthy run with nobody
 * hanging. Prints both and the ratio (issue 22 item 8 pins the slow case at under 3 s).
 *
 *   node bench/notify-isolation.mjs [rounds=3]
 */
import { createServer } from "node:http";
import { createClient, isPending } from "../scripts/lib/api.mjs";
import { startDevServer } from "../scripts/lib/dev-server.mjs";

const HANG_MS = 10_000;
const rounds = Number(process.argv[2] ?? 3);

/** A receiver on 127.0.0.1: paths under /slow/ answer after HANG_MS, the rest at once. */
async function startReceiver() {
  const arrivals = new Map(); // path → first arrival time
  const waiters = new Map();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (!arrivals.has(req.url)) {
        arrivals.set(req.url, performance.now());
        waiters.get(req.url)?.();
      }
      const answer = () => res.writeHead(204).end();
      req.url.startsWith("/slow/") ? setTimeout(answer, HANG_MS) : answer();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    url: (path) => `${origin}${path}`,
    arrived: (path) =>
      arrivals.has(path)
        ? Promise.resolve(arrivals.get(path))
        : new Promise((resolve) => waiters.set(path, () => resolve(arrivals.get(path)))),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const server = await startDevServer({ timeoutMs: 90_000 });
const receiver = await startReceiver();
const client = createClient({ baseUrl: server.url, apiToken: server.apiToken });

async function healthyLatency(tag) {
  const path = `/healthy/${tag}`;
  const started = performance.now();
  const { body } = await client.startRun({
    agent: "support",
    input: "Please refund $80 on order 42",
    callbackUrl: receiver.url(path),
  });
  await client.waitFor(body.runId, isPending);
  return (await receiver.arrived(path)) - started;
}

try {
  await healthyLatency("warm-up");
  const alone = [];
  const besideSlow = [];
  for (let i = 0; i < rounds; i += 1) {
    alone.push(await healthyLatency(`alone-${i}`));
    const slowPath = `/slow/${i}`;
    await client.startRun({
      agent: "support",
      input: "Please refund $80 on order 42",
      callbackUrl: receiver.url(slowPath),
    });
    await receiver.arrived(slowPath); // its batch is now in flight, the receiver hanging
    besideSlow.push(await healthyLatency(`beside-${i}`));
    await new Promise((resolve) => setTimeout(resolve, HANG_MS + 1_000)); // let it settle
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ms = (x) => `${Math.round(x)} ms`;
  console.log(`healthy notification, nobody hanging:          ${alone.map(ms).join(", ")}`);
  console.log(`healthy notification, a receiver hanging 10 s: ${besideSlow.map(ms).join(", ")}`);
  console.log(
    `median ${ms(median(besideSlow))} vs ${ms(median(alone))} baseline: ratio ${(median(besideSlow) / median(alone)).toFixed(2)}`,
  );
} finally {
  await receiver.close();
  await server.stop();
}
