/**
 * Scenario 1 — loop overhead (Node). One question in two turns against a mock
 * OpenAI-compatible server; systems run interleaved (shuffled order each round) after
 * a warm-up.
 * - Table 1, over loopback: the mock is a node:http keep-alive server in a child
 *   process. Peak memory: each system alone in a fresh process doing the same runs.
 * - Table 2, in-process: the same mock as an injected `fetch` (no sockets), which
 *   isolates each system's own work from the network and from scheduling noise.
 *
 *   node loop.mjs [--runs 300] [--warmup 50] [--inproc-runs 2000]
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { startMock, mockFetch, LOOP_FINAL } from "./lib/mock-server.mjs";
import { systems } from "./lib/loop-systems.mjs";
import { importKernel } from "./lib/build.mjs";
import { summarize, table, ms, ratio, mib, shuffled, arg, machine } from "./lib/stats.mjs";

const NAMES = ["raw", "toolnexus", "vercel-ai", "openai-agents"];
const LABELS = { raw: "raw fetch loop (baseline)", toolnexus: "toolnexus createClient", "vercel-ai": "Vercel AI SDK (ai 6)", "openai-agents": "OpenAI Agents SDK 0.14.3" };

async function setup(names, origin, fetchImpl) {
  const kernel = names.includes("toolnexus") ? await importKernel() : undefined;
  const runs = {};
  for (const name of names) runs[name] = await systems[name](origin, kernel, fetchImpl);
  return runs;
}

async function once(name, run) {
  const text = await run();
  if (text !== LOOP_FINAL) throw new Error(`${name}: unexpected final text ${JSON.stringify(text)}`);
}

/** Child mode: one system alone, for its peak memory. */
async function memoryChild(name, origin, runs, warmup) {
  const { [name]: run } = await setup([name], origin);
  for (let i = 0; i < warmup + runs; i += 1) await once(name, run);
  process.send({ maxRss: process.resourceUsage().maxRSS * 1024, heap: process.memoryUsage().heapUsed });
}

function measureMemory(name, origin, runs, warmup) {
  const child = fork(fileURLToPath(import.meta.url), ["--memory-child", name, "--origin", origin, "--runs", String(runs), "--warmup", String(warmup)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill("SIGKILL"), reject(new Error(`${name}: memory run timed out`))), 120_000);
    child.once("message", (m) => (clearTimeout(timer), resolve(m)));
    child.once("exit", (code) => code !== 0 && (clearTimeout(timer), reject(new Error(`${name}: memory child exited ${code}`))));
  });
}

/** Interleaved: every round runs each system once, in a fresh shuffled order. */
async function interleaved(run, runs, warmup) {
  const wall = Object.fromEntries(NAMES.map((n) => [n, []]));
  const cpu = Object.fromEntries(NAMES.map((n) => [n, []]));
  for (let i = 0; i < warmup; i += 1) for (const name of shuffled(NAMES)) await once(name, run[name]);
  for (let i = 0; i < runs; i += 1) {
    for (const name of shuffled(NAMES)) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await once(name, run[name]);
      wall[name].push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu[name].push((c.user + c.system) / 1000);
    }
  }
  return { wall: Object.fromEntries(NAMES.map((n) => [n, summarize(wall[n])])), cpu: Object.fromEntries(NAMES.map((n) => [n, summarize(cpu[n])])) };
}

export async function main() {
  const runs = Number(arg("runs", 300));
  const warmup = Number(arg("warmup", 50));
  const inprocRuns = Number(arg("inproc-runs", 2000));
  const mock = await startMock();
  let out = "";
  try {
    const net = await interleaved(await setup(NAMES, mock.origin), runs, warmup);
    const memory = {};
    for (const name of NAMES) memory[name] = await measureMemory(name, mock.origin, runs, warmup);
    const base = net.wall.raw;
    out += table(
      `Loop overhead over loopback — one question, two turns (two tool calls at once), interleaved, ${runs} runs each after ${warmup} warm-up`,
      ["system", "runs", "median ms", "p95 ms", "median ×raw", "p95 ×raw", "client CPU ms (median)", "CPU ×raw", "peak RSS MiB", "RSS ×raw"],
      NAMES.map((n) => [
        LABELS[n], net.wall[n].n, ms(net.wall[n].median), ms(net.wall[n].p95), ratio(net.wall[n].median, base.median), ratio(net.wall[n].p95, base.p95),
        ms(net.cpu[n].median), ratio(net.cpu[n].median, net.cpu.raw.median), mib(memory[n].maxRss), ratio(memory[n].maxRss, memory.raw.maxRss),
      ]),
    );
    const local = await interleaved(await setup(NAMES, "http://mock.invalid", mockFetch), inprocRuns, warmup * 4);
    out += "\n" + table(
      `Loop overhead in-process — the same mock as an injected fetch (no sockets), interleaved, ${inprocRuns} runs each after ${warmup * 4} warm-up`,
      ["system", "runs", "median ms", "p95 ms", "median ×raw", "p95 ×raw", "overhead over raw, median µs"],
      NAMES.map((n) => [
        LABELS[n], local.wall[n].n, ms(local.wall[n].median), ms(local.wall[n].p95), ratio(local.wall[n].median, local.wall.raw.median), ratio(local.wall[n].p95, local.wall.raw.p95),
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

if (process.argv.includes("--memory-child")) {
  await memoryChild(arg("memory-child"), arg("origin"), Number(arg("runs", 300)), Number(arg("warmup", 50)));
  process.exit(0);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
