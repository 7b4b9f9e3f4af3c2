/**
 * bench/inbox.mjs --sizes: what finding costs as the inbox grows. The inbox is grown to each
 * size in turn (real suspended runs, seeded by the caller), then each listing below is asked
 * `rounds` times for its first page (limit 50): wall time over loopback, the rows the page
 * read (`x-rows-read`) and the rows its counts read (`x-count-rows-read`), and how many
 * requests matched (`counts.matching`).
 */

/** The listings measured: each seeded run's input names its order number and its requester. */
export const LISTINGS = [
  ["no filter (waiting longest first)", ""],
  ["sort=expires", "sort=expires"],
  ["agent + tool (all match)", "agent=support&tool=refund_order"],
  ["requestedBy (1 in 10)", "requestedBy=user3%40example.com"],
  ["q=order 77 (text)", "q=order%2077"],
  ["q + requestedBy + sort=expires", "q=order%2077&requestedBy=user7%40example.com&sort=expires"],
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

/**
 * One size: `rounds` rounds, each asking every listing once (interleaved, so a busy moment of
 * the shared machine falls on all listings alike), plus /healthz as the baseline.
 */
export async function measureListings({ origin, auth, size, rounds }) {
  const cells = LISTINGS.map(([name]) => ({
    size,
    name,
    times: [],
    read: 0,
    countRead: 0,
    matching: 0,
  }));
  const health = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, [, query]] of LISTINGS.entries()) {
      const cell = cells[i];
      const start = performance.now();
      const response = await fetch(`${origin}/v1/approvals?group=default&limit=50&${query}`, {
        headers: auth,
      });
      const body = await response.json();
      cell.times.push(performance.now() - start);
      if (response.status !== 200) {
        throw new Error(`GET /v1/approvals?${query} → ${response.status} ${JSON.stringify(body)}`);
      }
      cell.read = Number(response.headers.get("x-rows-read"));
      cell.countRead = Number(response.headers.get("x-count-rows-read"));
      cell.matching = body.counts.matching;
    }
    const start = performance.now();
    await (await fetch(`${origin}/healthz`)).text();
    health.push(performance.now() - start);
  }
  const rows = cells.map(({ times, ...cell }) => ({
    ...cell,
    p50: median(times),
    p95: p95(times),
  }));
  return { rows, health: median(health) };
}

/** The table; `header: false` prints only the rows (a size measured after the first). */
export function printTable(results, { rounds, note, header = true }) {
  if (header) {
    printHeader(rounds, note);
  }
  for (const { rows, health } of results) {
    for (const r of rows) {
      console.log(
        `| ${r.size} | ${r.name} | ${r.matching} | ${r.read} | ${r.countRead} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${health.toFixed(1)} |`,
      );
    }
  }
}

function printHeader(rounds, note) {
  console.log(
    `\n**Inbox find — first page (limit 50) of \`GET /v1/approvals?group=default\` under wrangler dev, ${rounds} requests per cell** (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${note})\n`,
  );
  console.log(
    "| pending | listing | matching | rows read (page) | rows read (counts) | p50 ms | p95 ms | GET /healthz p50 ms |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
}
