/**
 * The edge peer, side by side (issue 46): the same human-approved refund on Cloudflare's own
 * `agents` SDK (edge-peers/agents/worker.ts: an `Agent` whose turn is the AI SDK's
 * `generateText` with a `needsApproval` tool) and on toolnexus-edge (the support agent), both
 * under `wrangler dev` (workerd, local SQLite Durable Objects), both driven by the same scripted
 * model (scripts/lib/fake-model.mjs) on 127.0.0.1. One cycle: request → pending, approve →
 * tool ran → done.
 *
 * - toolnexus-edge: pipeline.mjs's cycle (POST /v1/runs, SSE until `pending`, a signed decision,
 *   SSE until `done`); "tool started" is the `resumed` event, which the log writes as the
 *   approved call starts.
 * - agents: POST {input} → {status: "pending", approvalId}; POST {approvalId, approved} →
 *   {status: "done"}; "tool started" is the tool's ping to this client.
 *
 * Columns, per worker and per parallelism (1 = one cycle at a time, N in parallel):
 * - CPU per cycle: the worker isolate's busy time (not idle) in a CPU profile taken through
 *   wrangler's inspector port over the measured cycles, divided by the cycles (both workers
 *   are profiled alike; the profiler's own cost is in both);
 * - decision → tool started and decision → done, p50 / p95 (client wall time over loopback);
 * - state bytes per run: the growth of the `--persist-to` folder (SQLite files and WAL) over the
 *   measured cycles, divided by them;
 * - bundle gzip: the `wrangler deploy --dry-run` output, gzipped (level 9, as wrangler reports);
 * - first cycle after a fresh `wrangler dev`: the isolate's busy time over the first cycle after
 *   a new wrangler dev is ready, `--starts` times per worker (new state each time). Module
 *   evaluation at workerd's start happens before an inspector can attach and is not in it; what
 *   is in it is everything the first use pays: the Durable Object's construction, its schema,
 *   lazily built tables, first compilation of the code paths.
 *
 * Every cycle is checked: done, the refund ran exactly once (ours: the transcript; the peer: the
 * tool results and the pings).
 *
 *   node edge-peers.mjs [--parallel 1,100] [--serial-runs 30] [--rounds 2] [--starts 5] [--smoke]
 */
import fs from "node:fs";
import path from "node:path";
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { BENCH, ROOT } from "./lib/build.mjs";
import { snapshotWorker, startWranglerDev } from "./lib/wrangler-dev.mjs";
import { startProfile } from "./lib/inspector-profile.mjs";
import { workerdCpuMs } from "./lib/workerd-cpu.mjs";
import { arg, machine, ms, ratio, summarize, table } from "./lib/stats.mjs";
import { API_TOKEN, APPROVER_GROUPS, RECEIPT_KEY, SECRET, cycle as ourCycle } from "./pipeline.mjs";
import { startFakeModel } from "../scripts/lib/fake-model.mjs";

const SMOKE = process.argv.includes("--smoke");
const PARALLEL = String(arg("parallel", SMOKE ? "1,2" : "1,100"))
  .split(",")
  .map(Number);
const SERIAL_RUNS = Number(arg("serial-runs", SMOKE ? 2 : 30));
const ROUNDS = Number(arg("rounds", SMOKE ? 1 : 2));
const STARTS = Number(arg("starts", SMOKE ? 1 : 5));
const INPUT = "Please refund $120 on order 42";
// The isolate's profiler costs CPU itself (a sample every 200 µs): the batches run without it
// unless asked, and the startup column (which needs it) is profiled alike for both workers.
const PROFILE = process.argv.includes("--profile");

/** Busy (not idle) milliseconds of a CPU profile. */
function busyMs(profile) {
  const idle = new Set(
    profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id),
  );
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    if (!idle.has(profile.samples[i])) {
      busy += profile.timeDeltas[i] ?? 0;
    }
  }
  return busy / 1000;
}

/** Bytes under a folder (the worker's local state: SQLite databases and their WAL). */
function folderBytes(dir) {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      total += fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).size;
    }
  }
  return total;
}

/** The tool's pings: run name → arrival time (ms, this process's clock), and how many came. */
function startPingServer() {
  const arrivals = new Map();
  const counts = new Map();
  const server = createServer((req, res) => {
    const run = new URL(req.url, "http://x").searchParams.get("run") ?? "";
    if (!arrivals.has(run)) {
      arrivals.set(run, performance.now());
    }
    counts.set(run, (counts.get(run) ?? 0) + 1);
    req.resume();
    res.writeHead(204).end();
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/ping`,
        arrivals,
        counts,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

let peerRuns = 0;
/** One refund on the agents peer: request → pending, approve → tool ran → done. */
async function peerCycle(origin, pings, signal) {
  peerRuns += 1;
  const run = `run-${process.pid}-${peerRuns}-${Math.random().toString(36).slice(2, 8)}`;
  const url = `${origin}/agents/refund-agent/${run}`;
  const post = async (body) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    if (!response.ok) {
      throw new Error(`agents peer: HTTP ${response.status} ${text.slice(0, 300)}`);
    }
    return JSON.parse(text);
  };
  const t0 = performance.now();
  const pending = await post({ input: INPUT });
  if (pending.status !== "pending") {
    throw new Error(`agents peer: expected pending, got ${JSON.stringify(pending)}`);
  }
  const t1 = performance.now();
  const done = await post({ approvalId: pending.approvalId, approved: true });
  const t2 = performance.now();
  if (done.status !== "done" || done.refunds !== 1 || pings.counts.get(run) !== 1) {
    throw new Error(
      `agents peer: run ${run} ended ${JSON.stringify(done)} with ${pings.counts.get(run) ?? 0} tool pings`,
    );
  }
  return {
    startToPending: t1 - t0,
    decisionToTool: pings.arrivals.get(run) - t1,
    decisionToDone: t2 - t1,
  };
}

/** Ours: pipeline.mjs's cycle (its run id kept for the check after the batch). */
async function toolnexusCycle(origin, signal) {
  const r = await ourCycle(origin, signal);
  return {
    runId: r.runId,
    startToPending: r.startToPending,
    decisionToTool: r.decisionToResumed,
    decisionToDone: r.decisionToDone,
  };
}

/**
 * Ours, after the batch and outside its CPU window (the peer's answer carries its check, ours is
 * a GET): every run done, refund_order ran exactly once.
 */
async function toolnexusCheck(origin, results) {
  const problems = [];
  for (const r of results) {
    const view = await (
      await fetch(`${origin}/v1/runs/${encodeURIComponent(r.runId)}?transcript=1`, {
        headers: { authorization: `Bearer ${API_TOKEN}` },
      })
    ).json();
    const ran = (view.toolCalls ?? []).filter(
      (c) => c.name === "refund_order" && !c.isError,
    ).length;
    if (view.status !== "done" || ran !== 1) {
      problems.push(
        `toolnexus: run ${r.runId} status ${view.status}, refund_order ran ${ran} times`,
      );
    }
  }
  return problems;
}

/** `count` cycles, `parallel` at a time, under the isolate's profiler. */
async function measureBatch(system, { parallel, count }) {
  const signal = AbortSignal.timeout(240_000);
  const before = folderBytes(system.state);
  const profiler = PROFILE ? await startProfile(system.server.inspectorPort) : undefined;
  const cpuBefore = workerdCpuMs(system.server.pid);
  const results = [];
  const failures = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next += 1;
        try {
          results.push(await system.cycle(signal));
        } catch (error) {
          failures.push(String(error?.message ?? error));
        }
      }
    }),
  );
  const workerd = workerdCpuMs(system.server.pid) - cpuBefore;
  const profile = profiler ? await profiler.stop() : undefined;
  const cpu = profile ? busyMs(profile) : Number.NaN;
  if (profile && arg("save-profiles")) {
    fs.mkdirSync(arg("save-profiles"), { recursive: true });
    fs.writeFileSync(
      path.join(arg("save-profiles"), `${system.short}.${parallel}.${Date.now()}.cpuprofile`),
      JSON.stringify(profile),
    );
  }
  // The state folder settles after the last write (WAL checkpoints); read it after the profile.
  const grown = folderBytes(system.state) - before;
  failures.push(...((await system.check?.(results)) ?? []));
  return { results, failures, cpu, workerd, grown, count };
}

async function startSystem(system, snapshot) {
  const state = fs.mkdtempSync(path.join(snapshot.dir, "..", "toolnexus-bench-edge-state-"));
  const server = await startWranglerDev({
    cwd: snapshot.dir,
    ready: system.ready,
    vars: system.vars,
    persistTo: state,
  });
  return {
    server,
    state,
    async stop() {
      await server.stop();
      fs.rmSync(state, { recursive: true, force: true });
    },
  };
}

export async function main() {
  const model = await startFakeModel();
  const pings = await startPingServer();
  const systems = [
    {
      label: "toolnexus-edge (support agent)",
      short: "toolnexus",
      cwd: ROOT,
      ready: "/healthz",
      vars: {
        API_TOKEN,
        WEBHOOK_SECRET: SECRET,
        RECEIPT_KEY,
        APPROVER_GROUPS,
        LLM_BASE_URL: `${model.url}/v1`,
        LLM_STYLE: "openai",
        LLM_MODEL: "fake-model",
      },
      run: (origin, signal) => toolnexusCycle(origin, signal),
      check: (origin, results) => toolnexusCheck(origin, results),
    },
    {
      label: "agents 0.32 (Agent + AI SDK needsApproval)",
      short: "agents",
      cwd: path.join(BENCH, "edge-peers", "agents"),
      ready: "/ready",
      vars: { LLM_BASE_URL: `${model.url}/v1`, TOOL_PING_URL: pings.url },
      run: (origin, signal) => peerCycle(origin, pings, signal),
    },
  ];
  const snapshots = [];
  const running = [];
  const out = [];
  let failed = 0;
  try {
    for (const s of systems) {
      const snapshot = await snapshotWorker(s.cwd, {
        minify: !process.argv.includes("--no-minify"),
      });
      snapshots.push(snapshot);
      s.gzip = gzipSync(fs.readFileSync(path.join(snapshot.dir, "worker.js")), { level: 9 }).length;
    }
    // Startup: the first cycle after a fresh wrangler dev, alternating the workers.
    for (const s of systems) {
      s.first = [];
      s.firstWall = [];
    }
    for (let i = 0; i < STARTS; i += 1) {
      for (const [k, s] of systems.entries()) {
        const up = await startSystem(s, snapshots[k]);
        try {
          const cpuBefore = workerdCpuMs(up.server.pid);
          const t0 = performance.now();
          await s.run(up.server.origin, AbortSignal.timeout(120_000));
          s.firstWall.push(performance.now() - t0);
          s.first.push(workerdCpuMs(up.server.pid) - cpuBefore);
        } finally {
          await up.stop();
        }
      }
    }
    // Steady state: both up for the whole run, batches alternate per round.
    for (const [k, s] of systems.entries()) {
      const up = await startSystem(s, snapshots[k]);
      running.push(up);
      s.server = up.server;
      s.state = up.state;
      s.cycle = (signal) => s.run(up.server.origin, signal);
      const check = s.check;
      s.check = check ? (results) => check(up.server.origin, results) : undefined;
      for (let w = 0; w < 3; w += 1) {
        await s.cycle(AbortSignal.timeout(120_000)); // warm-up: first compilation, first queue batch
      }
      s.batches = new Map(PARALLEL.map((p) => [p, []]));
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const parallel of PARALLEL) {
        for (const s of systems) {
          const count = parallel === 1 ? SERIAL_RUNS : parallel;
          const batch = await measureBatch(s, { parallel, count });
          s.batches.get(parallel).push(batch);
          failed += batch.failures.length;
          console.error(
            `  round ${round + 1}, ${parallel} in parallel, ${s.short}: ${batch.results.length}/${count} done, ${(batch.workerd / count).toFixed(1)} ms workerd CPU per cycle${batch.failures.length ? `; first failure: ${batch.failures[0]}` : ""}`,
          );
        }
      }
    }
  } finally {
    for (const up of running) {
      await up.stop();
    }
    for (const snapshot of snapshots) {
      snapshot.remove();
    }
    await model.close();
    await pings.close();
  }
  const [ours] = systems;
  const cpuPer = (s, p, key = "workerd") => {
    const b = s.batches.get(p);
    return b.reduce((t, x) => t + x[key], 0) / b.reduce((t, x) => t + x.count, 0);
  };
  const statePer = (s, p) => {
    const b = s.batches.get(p);
    return b.reduce((t, x) => t + x.grown, 0) / b.reduce((t, x) => t + x.count, 0);
  };
  const all = (s, p, key) =>
    summarize(
      s.batches
        .get(p)
        .flatMap((b) => b.results.map((r) => r[key]))
        .filter((v) => Number.isFinite(v)),
    );
  out.push(
    table(
      `The edge peer — the same approved refund under wrangler dev (workerd), the same scripted model on 127.0.0.1; startup over ${STARTS} fresh wrangler dev each`,
      [
        "worker",
        "bundle gzip KiB",
        "×ours",
        "first cycle after a fresh start: workerd CPU p50 ms",
        "×ours",
        "its wall p50 ms",
      ],
      systems.map((s) => [
        s.label,
        (s.gzip / 1024).toFixed(1),
        ratio(s.gzip, ours.gzip),
        ms(summarize(s.first).median),
        ratio(summarize(s.first).median, summarize(ours.first).median),
        ms(summarize(s.firstWall).median),
      ]),
    ),
  );
  for (const p of PARALLEL) {
    out.push(
      table(
        `The edge peer — ${p === 1 ? `one cycle at a time (${SERIAL_RUNS} per round)` : `${p} cycles in parallel`}, ${ROUNDS} alternating round(s)`,
        [
          "worker",
          "done",
          "workerd CPU per cycle ms",
          "×ours",
          ...(PROFILE ? ["isolate busy per cycle (profiler) ms", "×ours"] : []),
          "decision → tool started p50 / p95 ms",
          "decision → done p50 / p95 ms",
          "start → pending p50 ms",
          "state bytes per run",
          "×ours",
        ],
        systems.map((s) => {
          const tool = all(s, p, "decisionToTool");
          const done = all(s, p, "decisionToDone");
          const n = s.batches.get(p).reduce((t, b) => t + b.results.length, 0);
          const of = s.batches.get(p).reduce((t, b) => t + b.count, 0);
          return [
            s.label,
            `${n}/${of}`,
            ms(cpuPer(s, p)),
            ratio(cpuPer(s, p), cpuPer(ours, p)),
            ...(PROFILE
              ? [ms(cpuPer(s, p, "cpu")), ratio(cpuPer(s, p, "cpu"), cpuPer(ours, p, "cpu"))]
              : []),
            `${ms(tool.median)} / ${ms(tool.p95)}`,
            `${ms(done.median)} / ${ms(done.p95)}`,
            ms(all(s, p, "startToPending").median),
            Math.round(statePer(s, p)),
            ratio(statePer(s, p), statePer(ours, p)),
          ];
        }),
      ),
    );
  }
  console.log(out.join("\n"));
  for (const s of systems) {
    for (const [p, batches] of s.batches) {
      for (const f of batches.flatMap((b) => b.failures).slice(0, 3)) {
        console.log(`  ${s.short} at ${p}: ${f}`);
      }
    }
  }
  console.log(`machine: ${machine()}\n`);
  if (failed > 0) {
    throw new Error(`${failed} cycles failed`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
