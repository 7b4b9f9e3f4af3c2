/**
 * Scenario 1 — loop overhead (Node). One question in two turns against a mock
 * OpenAI-compatible server (a node:http keep-alive server in a child process).
 * - Table 1, pairs over loopback: each system runs interleaved with the raw loop (order
 *   alternating each round) in a fresh Node process of its own, after a long warm-up, so
 *   every ratio compares a system with the floor under the same process conditions
 *   (heap, JIT state, caches) and nothing else. This is the table the target is read from.
 *   Each pair runs in several processes (`--processes`, default 3): one process's ratio
 *   moves by a few percent with its memory layout, so the row is the process with the
 *   median ratio and the last column lists every process's.
 * - Table 2, all systems in one process over loopback (shuffled order each round): the
 *   frameworks share one heap, one zod and the CPU caches, so each pays for the others'
 *   garbage and evictions; it shows how much that moves the ratios.
 * - Table 3, in-process: the same mock as an injected `fetch` (no sockets), all systems in
 *   one process, which isolates each system's own work from the network.
 * Peak memory: each system alone in a fresh process (300 runs after 50 warm-up).
 *
 *   node loop.mjs [--stream] [--runs 1000] [--warmup 3000] [--processes 3] [--inproc-runs 2000] [--inproc-warmup 2000] [--systems a,b]
 */
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { startMock, mockFetch, LOOP_FINAL } from "./lib/mock-server.mjs";
import { systems as plainSystems } from "./lib/loop-systems.mjs";
import { systems as streamSystems } from "./lib/stream-systems.mjs";
import { importKernel } from "./lib/build.mjs";
import { childResult } from "./lib/child.mjs";
import { PEER_LABELS } from "./lib/peer-versions.mjs";
import { summarize, table, ms, ratio, mib, shuffled, arg, machine } from "./lib/stats.mjs";

// `--stream`: the same scenario with every reply streamed (SSE), the raw SSE loop as the floor.
const STREAM = process.argv.includes("--stream");
const systems = STREAM ? streamSystems : plainSystems;
const KIND = STREAM ? "Streaming loop overhead (SSE)" : "Loop overhead";
const ALL = STREAM
  ? ["raw", "toolnexus", "toolnexus-ontext", "vercel-ai", "openai-agents"]
  : ["raw", "toolnexus", "toolnexus-json", "vercel-ai", "openai-agents"];
// `--systems toolnexus,toolnexus-json` measures a subset (the raw loop is always in).
const NAMES = arg("systems")
  ? ["raw", ...ALL.filter((n) => n !== "raw" && arg("systems").split(",").includes(n))]
  : ALL;
const SHORT = {
  toolnexus: STREAM ? "toolnexus stream()" : "toolnexus",
  "toolnexus-ontext": "toolnexus ask({ onText })",
  "toolnexus-json": "toolnexus, JSON-Schema tools",
  "vercel-ai": "Vercel AI SDK",
  "openai-agents": "OpenAI Agents SDK",
};
const LABELS = {
  raw: STREAM ? "raw SSE loop (baseline)" : "raw fetch loop (baseline)",
  "toolnexus-ontext": "toolnexus ask({ onText }) (zod tools)",
  toolnexus: STREAM ? "toolnexus stream() (zod tools)" : "toolnexus createClient (zod tools)",
  "toolnexus-json": "toolnexus createClient (JSON-Schema tools)",
  "vercel-ai": PEER_LABELS["vercel-ai"],
  "openai-agents": PEER_LABELS["openai-agents"],
};

async function setup(names, origin, fetchImpl) {
  const kernel = names.some((n) => n.startsWith("toolnexus")) ? await importKernel() : undefined;
  const runs = {};
  for (const name of names) {
    runs[name] = await systems[name](origin, kernel, fetchImpl);
  }
  return runs;
}

async function once(name, run) {
  const text = await run();
  if (text !== LOOP_FINAL) {
    throw new Error(`${name}: unexpected final text ${JSON.stringify(text)}`);
  }
}

/** Child mode: one system alone, for its peak memory. */
async function memoryChild(name, origin, runs, warmup) {
  const { [name]: run } = await setup([name], origin);
  for (let i = 0; i < warmup + runs; i += 1) {
    await once(name, run);
  }
  process.send({
    maxRss: process.resourceUsage().maxRSS * 1024,
    heap: process.memoryUsage().heapUsed,
  });
}

function measureMemory(name, origin, runs, warmup) {
  return runChild(
    [
      "--memory-child",
      name,
      "--origin",
      origin,
      "--runs",
      String(runs),
      "--warmup",
      String(warmup),
    ],
    `${name} memory run`,
  );
}

/**
 * Interleaved: every round runs each system once, in a fresh shuffled order (two
 * systems: alternating). Returns wall and client-CPU summaries per system.
 */
async function interleaved(names, run, runs, warmup) {
  const wall = Object.fromEntries(names.map((n) => [n, []]));
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  const order = (i) =>
    names.length === 2 ? (i % 2 ? names : [...names].reverse()) : shuffled(names);
  for (let i = 0; i < warmup; i += 1) {
    for (const name of order(i)) {
      await once(name, run[name]);
    }
  }
  for (let i = 0; i < runs; i += 1) {
    for (const name of order(i)) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await once(name, run[name]);
      wall[name].push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu[name].push((c.user + c.system) / 1000);
    }
  }
  return {
    wall: Object.fromEntries(names.map((n) => [n, summarize(wall[n])])),
    cpu: Object.fromEntries(names.map((n) => [n, summarize(cpu[n])])),
  };
}

/** Child mode: the raw loop and one system, interleaved, in this process only. */
async function pairChild(name, origin, runs, warmup) {
  const names = ["raw", name];
  process.send(await interleaved(names, await setup(names, origin), runs, warmup));
}

const runChild = (args, what) =>
  childResult(fileURLToPath(import.meta.url), STREAM ? [...args, "--stream"] : args, what);

const pairRun = (name, origin, runs, warmup) =>
  runChild(
    ["--pair-child", name, "--origin", origin, "--runs", String(runs), "--warmup", String(warmup)],
    `${name} pair`,
  );

/** Of several pair processes' results, the one whose median ratio is the median one. */
function medianProcess(name, results) {
  const byRatio = results
    .map((r) => ({ r, ratio: r.wall[name].median / r.wall.raw.median }))
    .sort((a, b) => a.ratio - b.ratio);
  return byRatio[(byRatio.length - 1) >> 1].r;
}

export async function main() {
  const runs = Number(arg("runs", 1000));
  const warmup = Number(arg("warmup", 3000));
  const processes = Number(arg("processes", 3));
  const inprocRuns = Number(arg("inproc-runs", 2000));
  const inprocWarmup = Number(arg("inproc-warmup", 2000));
  const mock = await startMock();
  let out = "";
  try {
    const pairs = {};
    const perProcess = {};
    for (const name of NAMES.slice(1)) {
      const results = [];
      for (let i = 0; i < processes; i += 1) {
        results.push(await pairRun(name, mock.origin, runs, warmup));
      }
      pairs[name] = medianProcess(name, results);
      perProcess[name] = results
        .map((r) => (r.wall[name].median / r.wall.raw.median).toFixed(2))
        .join(" · ");
    }
    const memory = {};
    for (const name of NAMES) {
      memory[name] = await measureMemory(
        name,
        mock.origin,
        Math.min(runs, 300),
        Math.min(warmup, 50),
      );
    }
    const baseRow = (label, raw) => [
      label,
      raw.wall.raw.n,
      ms(raw.wall.raw.median),
      ms(raw.wall.raw.p95),
      "1.00×",
      "1.00×",
      ms(raw.cpu.raw.median),
      "1.00×",
    ];
    out += table(
      `${KIND} over loopback, pairs — each system interleaved with the raw loop in its own process (${processes} processes each; the median one shown), ${runs} rounds after ${warmup} warm-up`,
      [
        "system",
        "runs",
        "median ms",
        "p95 ms",
        "median ×raw",
        "p95 ×raw",
        "client CPU ms (median)",
        "CPU ×raw",
        "peak RSS MiB",
        "RSS ×raw",
        "median ×raw, each process",
      ],
      NAMES.slice(1).flatMap((n) => {
        const p = pairs[n];
        return [
          [
            ...baseRow(`${LABELS.raw.replace(")", `, pair with ${SHORT[n]})`)}`, p),
            mib(memory.raw.maxRss),
            "1.00×",
            "",
          ],
          [
            LABELS[n],
            p.wall[n].n,
            ms(p.wall[n].median),
            ms(p.wall[n].p95),
            ratio(p.wall[n].median, p.wall.raw.median),
            ratio(p.wall[n].p95, p.wall.raw.p95),
            ms(p.cpu[n].median),
            ratio(p.cpu[n].median, p.cpu.raw.median),
            mib(memory[n].maxRss),
            ratio(memory[n].maxRss, memory.raw.maxRss),
            perProcess[n],
          ],
        ];
      }),
    );
    const all = await interleaved(NAMES, await setup(NAMES, mock.origin), runs, warmup);
    out +=
      "\n" +
      table(
        `${KIND} over loopback, all systems in one process — shuffled order each round, ${runs} rounds after ${warmup} warm-up`,
        [
          "system",
          "runs",
          "median ms",
          "p95 ms",
          "median ×raw",
          "p95 ×raw",
          "client CPU ms (median)",
          "CPU ×raw",
        ],
        NAMES.map((n) => [
          LABELS[n],
          all.wall[n].n,
          ms(all.wall[n].median),
          ms(all.wall[n].p95),
          ratio(all.wall[n].median, all.wall.raw.median),
          ratio(all.wall[n].p95, all.wall.raw.p95),
          ms(all.cpu[n].median),
          ratio(all.cpu[n].median, all.cpu.raw.median),
        ]),
      );
    const local = await interleaved(
      NAMES,
      await setup(NAMES, "http://mock.invalid", mockFetch),
      inprocRuns,
      inprocWarmup,
    );
    out +=
      "\n" +
      table(
        `${KIND} in-process — the same mock as an injected fetch (no sockets), all systems in one process, ${inprocRuns} rounds after ${inprocWarmup} warm-up`,
        [
          "system",
          "runs",
          "median ms",
          "p95 ms",
          "median ×raw",
          "p95 ×raw",
          "overhead over raw, median µs",
        ],
        NAMES.map((n) => [
          LABELS[n],
          local.wall[n].n,
          ms(local.wall[n].median),
          ms(local.wall[n].p95),
          ratio(local.wall[n].median, local.wall.raw.median),
          ratio(local.wall[n].p95, local.wall.raw.p95),
          Math.round(1000 * (local.wall[n].median - local.wall.raw.median)),
        ]),
      );
    console.log(out);
    console.log(`machine: ${machine()}\n`);
    return out;
  } finally {
    await mock.stop();
  }
}

if (process.argv.includes("--pair-child")) {
  await pairChild(
    arg("pair-child"),
    arg("origin"),
    Number(arg("runs", 1000)),
    Number(arg("warmup", 3000)),
  );
  process.exit(0);
} else if (process.argv.includes("--memory-child")) {
  await memoryChild(
    arg("memory-child"),
    arg("origin"),
    Number(arg("runs", 300)),
    Number(arg("warmup", 50)),
  );
  process.exit(0);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
