/**
 * Scenario 1 — loop overhead (Node). One question in two turns against a local mock
 * OpenAI-compatible server; systems run interleaved (shuffled order each round) after
 * a warm-up. Peak memory: each system alone in a fresh process doing the same runs.
 *
 *   node loop.mjs [--runs 300] [--warmup 50]
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { startMock, LOOP_FINAL } from "./lib/mock-server.mjs";
import { systems } from "./lib/loop-systems.mjs";
import { importKernel } from "./lib/build.mjs";
import { summarize, table, ms, ratio, mib, shuffled, arg, machine } from "./lib/stats.mjs";

const NAMES = ["raw", "toolnexus", "vercel-ai", "openai-agents"];
const LABELS = { raw: "raw fetch loop (baseline)", toolnexus: "toolnexus createClient", "vercel-ai": "Vercel AI SDK (ai 6)", "openai-agents": "OpenAI Agents SDK 0.14.3" };

async function setup(names, origin) {
  const kernel = names.includes("toolnexus") ? await importKernel() : undefined;
  const runs = {};
  for (const name of names) runs[name] = await systems[name](origin, kernel);
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

export async function main() {
  const runs = Number(arg("runs", 300));
  const warmup = Number(arg("warmup", 50));
  const mock = await startMock();
  try {
    const run = await setup(NAMES, mock.origin);
    const samples = Object.fromEntries(NAMES.map((n) => [n, []]));
    const cpu = Object.fromEntries(NAMES.map((n) => [n, []]));
    for (let i = 0; i < warmup; i += 1) for (const name of shuffled(NAMES)) await once(name, run[name]);
    for (let i = 0; i < runs; i += 1) {
      for (const name of shuffled(NAMES)) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await once(name, run[name]);
        samples[name].push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpu[name].push((c.user + c.system) / 1000);
      }
    }
    const memory = {};
    for (const name of NAMES) memory[name] = await measureMemory(name, mock.origin, runs, warmup);

    const stats = Object.fromEntries(NAMES.map((n) => [n, summarize(samples[n])]));
    const cpuStats = Object.fromEntries(NAMES.map((n) => [n, summarize(cpu[n])]));
    const base = stats.raw;
    const rows = NAMES.map((n) => [
      LABELS[n], stats[n].n, ms(stats[n].median), ms(stats[n].p95), ratio(stats[n].median, base.median), ratio(stats[n].p95, base.p95),
      ms(cpuStats[n].median), ratio(cpuStats[n].median, cpuStats.raw.median),
      mib(memory[n].maxRss), ratio(memory[n].maxRss, memory.raw.maxRss),
    ]);
    const out = table(
      `Loop overhead — one question, two turns (two tool calls at once), interleaved, ${runs} runs each after ${warmup} warm-up`,
      ["system", "runs", "median ms", "p95 ms", "median ×raw", "p95 ×raw", "client CPU ms (median)", "CPU ×raw", "peak RSS MiB", "RSS ×raw"],
      rows,
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
