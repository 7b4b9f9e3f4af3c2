/**
 * What listing the approvals inbox costs: N open requests in one group (default 1,000,
 * each a real suspended run of the support agent in its own thread: a $80 refund, whose
 * request has no approver rules and so lands in `default`), then
 * `GET /v1/approvals?group=default` page by page under `wrangler dev`. Per page: wall time
 * and the SQLite rows the inbox read (`x-rows-read`). Same-run baseline: `GET /healthz`,
 * the cheapest request through the same worker, so the ratio says what a page adds.
 *
 *   node bench/inbox.mjs [--requests 1000] [--rounds 3]
 *
 * With `--sizes 100,1000,10000` it measures finding instead (lib/inbox-find.mjs): the inbox
 * grown to each size in turn, the first page of each filter and sort, `--rounds` times each
 * (default 20 in that mode). Each run's input names its own order number and it is started
 * for one of ten requesters (`requestedBy`), so the filters have something to tell apart.
 *
 *   node bench/inbox.mjs --sizes 100,1000,10000 [--rounds 20] [--note "shared machine"]
 */
import path from "node:path";
import { ROOT } from "./lib/build.mjs";
import { readVars, snapshotWorker, startWranglerDev } from "./lib/wrangler-dev.mjs";
import { measureListings, printTable } from "./lib/inbox-find.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const REQUESTS = Number(arg("requests", 1000));
const SIZES = arg("sizes", "").split(",").filter(Boolean).map(Number);
const ROUNDS = Number(arg("rounds", SIZES.length > 0 ? 20 : 3));
const NOTE = arg("note", "");
const vars = readVars(path.join(ROOT, ".dev.vars.example"));
// .dev.vars.example leaves WEBHOOK_SECRET for `npm start` to generate: the bench makes its own.
const WEBHOOK_SECRET = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
// Every worker needs a receipt key from its first request on (src/edge/config-check.ts).
const RECEIPT_KEY = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
const auth = { authorization: `Bearer ${vars.API_TOKEN}` };
// The demo agent's tools name these groups (a run of an agent whose rules name an undefined
// group is refused with config_error), as in .dev.vars.example.
const APPROVER_GROUPS = vars.APPROVER_GROUPS.replace(/^'(.*)'$/, "$1");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

async function timed(url, init) {
  const start = performance.now();
  const response = await fetch(url, init);
  const body = await response.json();
  return { ms: performance.now() - start, response, body };
}

/** Starts runs `from`…`to - 1` that suspend, `parallel` at a time: order n, requester n mod 10. */
async function seed(origin, to, { from = 0, parallel = SIZES.length > 0 ? 10 : 25 } = {}) {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const n = next;
      next += 1;
      const response = await startRun(origin, n);
      if (response.status !== 202) {
        throw new Error(`POST /v1/runs → ${response.status} ${await response.text()}`);
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/**
 * POST /v1/runs for run n. On a loaded machine workerd under `wrangler dev` sometimes
 * restarts mid-request (503 "Your worker restarted mid-request"; main does it too): that
 * start is tried again. The run may then exist twice; `grow` reads the real count.
 */
async function startRun(origin, n) {
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(`${origin}/v1/runs`, {
      method: "POST",
      headers: {
        ...auth,
        "content-type": "application/json",
      },
      // $80: no approver rules, so `default`.
      body: JSON.stringify({
        agent: "support",
        input: `Refund order ${n} for $80`,
        requestedBy: `user${n % 10}@example.com`,
      }),
    });
    if (response.status !== 503 || attempt >= 5 || SIZES.length === 0) {
      return response;
    }
    await response.arrayBuffer();
    restarts += 1;
    await new Promise((r) => setTimeout(r, 2000));
  }
}

let restarts = 0;

/** Seeds up to `size` runs and waits until the inbox lists them all. */
async function grow(origin, from, size) {
  const start = performance.now();
  await seed(origin, size, { from });
  for (;;) {
    const response = await fetch(`${origin}/v1/approvals?group=default&limit=1`, { headers: auth });
    const { counts } = await response.json();
    if (counts.open >= size) {
      break;
    }
    if (performance.now() - start > 1_800_000) {
      throw new Error(`only ${counts.open}/${size} in the inbox after 30 minutes`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  console.error(
    `grew the inbox to ${size} pending in ${((performance.now() - start) / 1000).toFixed(1)} s (worker restarts so far: ${restarts})`,
  );
}

/** Every page of the open list at `limit`; returns per-page timings and rows read. */
async function pass(origin, limit) {
  const pages = [];
  let cursor = null;
  let items = 0;
  do {
    const query = `group=default&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`;
    const { ms, response, body } = await timed(`${origin}/v1/approvals?${query}`, {
      headers: auth,
    });
    if (response.status !== 200) {
      throw new Error(`GET /v1/approvals → ${response.status} ${JSON.stringify(body)}`);
    }
    pages.push({ ms, rows: Number(response.headers.get("x-rows-read")) });
    items += body.items.length;
    cursor = body.nextCursor;
  } while (cursor);
  return { pages, items };
}

const snapshot = await snapshotWorker(ROOT);
const server = await startWranglerDev({
  cwd: snapshot.dir,
  ready: "/healthz",
  vars: {
    API_TOKEN: vars.API_TOKEN,
    WEBHOOK_SECRET,
    RECEIPT_KEY,
    APPROVER_GROUPS,
    LLM_BASE_URL: "",
    // Growing to 10,000 takes longer than the demo's 15-minute approval window on a busy
    // machine: the first requests would expire before the last surfaced.
    ...(SIZES.length > 0 ? { DEMO_APPROVAL_TIMEOUT: "3h" } : {}),
  },
});
try {
  const { origin } = server;
  if (SIZES.length > 0) {
    const results = [];
    let seeded = 0;
    for (const size of SIZES) {
      await grow(origin, seeded, size);
      seeded = size;
      // Let the seeded runs' own work (queues, outbox deliveries, alarms) settle first.
      await new Promise((r) => setTimeout(r, 15_000));
      const result = await measureListings({ origin, auth, size, rounds: ROUNDS });
      results.push(result);
      printTable([result], {
        rounds: ROUNDS,
        note: NOTE || "no note",
        header: results.length === 1,
      });
    }
  } else {
    const seedStart = performance.now();
    await seed(origin, REQUESTS);
    // Wait for every run to suspend and reach the inbox (queues and outbox deliveries).
    for (;;) {
      const { items } = await pass(origin, 200);
      if (items >= REQUESTS) {
        break;
      }
      if (performance.now() - seedStart > 600_000) {
        throw new Error(`only ${items}/${REQUESTS} in the inbox after 10 minutes`);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    console.error(
      `seeded ${REQUESTS} pending runs into the inbox in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
    );

    const rows = [];
    for (const limit of [50, 200]) {
      const pages = [];
      const health = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const result = await pass(origin, limit);
        if (result.items !== REQUESTS) {
          throw new Error(`listed ${result.items} items, wanted ${REQUESTS}`);
        }
        pages.push(...result.pages);
        for (let i = 0; i < result.pages.length; i += 1) {
          health.push((await timed(`${origin}/healthz`)).ms);
        }
      }
      const first = pages.filter((_, i) => i % Math.ceil(REQUESTS / limit) === 0).map((p) => p.ms);
      const last = pages
        .filter((_, i) => i % Math.ceil(REQUESTS / limit) === Math.ceil(REQUESTS / limit) - 1)
        .map((p) => p.ms);
      rows.push({
        limit,
        pages: Math.ceil(REQUESTS / limit),
        rowsMax: Math.max(...pages.map((p) => p.rows)),
        rowsTotal: pages.slice(0, Math.ceil(REQUESTS / limit)).reduce((n, p) => n + p.rows, 0),
        p50: median(pages.map((p) => p.ms)),
        p95: p95(pages.map((p) => p.ms)),
        first: median(first),
        last: median(last),
        health: median(health),
      });
    }
    console.log(
      `\n**Inbox listing — ${REQUESTS} open requests in one group under wrangler dev, ${ROUNDS} full pass(es) per page size**\n`,
    );
    console.log(
      "| limit | pages per pass | rows read per page (max) | rows read per pass | page p50 ms | p95 ms | first page p50 ms | last page p50 ms | GET /healthz p50 ms | page p50 ×healthz |",
    );
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const r of rows) {
      console.log(
        `| ${r.limit} | ${r.pages} | ${r.rowsMax} | ${r.rowsTotal} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.first.toFixed(1)} | ${r.last.toFixed(1)} | ${r.health.toFixed(1)} | ${(r.p50 / r.health).toFixed(2)}× |`,
      );
    }
  }
} catch (error) {
  // What the worker said just before (a crash names its cause there).
  console.error(server.output().slice(-4000));
  throw error;
} finally {
  await server.stop();
  snapshot.remove();
}
