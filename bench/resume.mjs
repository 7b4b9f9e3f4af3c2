/**
 * Scenario 2 — suspend and resume cost (Node). A run suspends on an approval after a
 * prior transcript of 10, 100 or 1,000 messages; its state is serialized to a string,
 * restored in fresh objects and resumed with a decline, finishing with one more model
 * turn. Systems interleave (shuffled order each round) after a warm-up. Resume time
 * runs from the string to the final text.
 * - Table 1, pairs: the raw resume and toolnexus alone, interleaved, in a fresh process
 *   (`--pair-processes`, default 3, each `--pair-runs` rounds after `--pair-warmup`); the
 *   row is the process with the median ratio. The ≤ 1.10× target is read from it.
 * - Table 2, every system in one process, as the peers are compared.
 *
 *   node resume.mjs [--runs 100] [--warmup 30] [--lengths 10,100,1000] [--systems toolnexus]
 *                   [--pair-processes 3] [--pair-runs 500] [--pair-warmup 500]
 */
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { startMock, APPROVE_FINAL } from "./lib/mock-server.mjs";
import { systems } from "./lib/resume-systems.mjs";
import { importKernel } from "./lib/build.mjs";
import { childResult } from "./lib/child.mjs";
import { PEER_LABELS } from "./lib/peer-versions.mjs";
import { summarize, table, ms, ratio, shuffled, arg, machine } from "./lib/stats.mjs";

const ALL = ["raw", "toolnexus", "toolnexus-fresh", "vercel-ai", "openai-agents", "langgraph"];
// `--systems toolnexus` measures a subset (the raw loop is always in).
const NAMES = arg("systems")
  ? ["raw", ...ALL.filter((n) => n !== "raw" && arg("systems").split(",").includes(n))]
  : ALL;
const PEERS = ["vercel-ai", "openai-agents", "langgraph"].filter((p) => NAMES.includes(p));
const LABELS = {
  raw: "raw loop (baseline)",
  toolnexus: "toolnexus runWithAnswer",
  "toolnexus-fresh": "toolnexus, new client + toolkit per resume",
  ...PEER_LABELS,
};

/** A prior transcript: alternating user/assistant text turns of ~120 characters. */
export function history(length) {
  return Array.from({ length }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content:
      `${i % 2 === 0 ? "Question" : "Answer"} ${i}: about order ${1000 + i}, its items, delivery and the invoice address. `.padEnd(
        120,
        ".",
      ),
  }));
}

/**
 * Each round: every system suspends after `prior` and resumes, in shuffled order; samples
 * after `warmup` rounds. Resume CPU is this process's CPU time during the resume.
 */
async function measure(names, sys, prior, runs, warmup) {
  const resume = Object.fromEntries(names.map((n) => [n, []]));
  const suspend = Object.fromEntries(names.map((n) => [n, []]));
  const bytes = Object.fromEntries(names.map((n) => [n, []]));
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  let transcript = 0;
  for (let i = 0; i < warmup + runs; i += 1) {
    for (const name of shuffled(names)) {
      const s0 = performance.now();
      const text = await sys[name].suspend(prior);
      const c1 = process.cpuUsage();
      const s1 = performance.now();
      const final = await sys[name].resume(text);
      const s2 = performance.now();
      const c2 = process.cpuUsage(c1);
      if (final !== APPROVE_FINAL) {
        throw new Error(`${name}: unexpected final text ${JSON.stringify(final)}`);
      }
      if (i < warmup) {
        continue;
      }
      suspend[name].push(s1 - s0);
      resume[name].push(s2 - s1);
      bytes[name].push(Buffer.byteLength(text));
      cpu[name].push((c2.user + c2.system) / 1000);
      if (name === "raw") {
        transcript = sys.raw.transcriptBytes(text);
      }
    }
  }
  return { resume, suspend, bytes, cpu, transcript };
}

/** Child mode: the raw resume and toolnexus alone in this process, every length; sends summaries. */
async function pairChild(origin, lengths, runs, warmup) {
  const kernel = await importKernel();
  const names = ["raw", "toolnexus"];
  const sys = {};
  for (const name of names) {
    sys[name] = await systems[name](origin, kernel);
  }
  const out = {};
  for (const length of lengths) {
    const { resume, cpu } = await measure(names, sys, history(length), runs, warmup);
    out[length] = {
      wall: Object.fromEntries(names.map((n) => [n, summarize(resume[n])])),
      cpu: Object.fromEntries(names.map((n) => [n, summarize(cpu[n])])),
    };
  }
  process.send(out);
}

const pairRun = (origin, lengths, runs, warmup) =>
  childResult(
    fileURLToPath(import.meta.url),
    [
      "--pair-child",
      "--origin",
      origin,
      "--lengths",
      lengths.join(","),
      "--pair-runs",
      String(runs),
      "--pair-warmup",
      String(warmup),
    ],
    "resume pair process",
  );

/** Table 1: toolnexus against the raw resume, pairs in their own processes. */
async function pairsTable(origin, lengths) {
  const processes = Number(arg("pair-processes", 3));
  const runs = Number(arg("pair-runs", 500));
  const warmup = Number(arg("pair-warmup", 500));
  const results = [];
  for (let i = 0; i < processes; i += 1) {
    results.push(await pairRun(origin, lengths, runs, warmup));
  }
  const rows = [];
  for (const length of lengths) {
    const ratios = results.map((r) => r[length].wall.toolnexus.median / r[length].wall.raw.median);
    const order = ratios.map((x, i) => [x, i]).sort((a, b) => a[0] - b[0]);
    const mid = results[order[(order.length - 1) >> 1][1]][length];
    rows.push(
      [
        length,
        LABELS.raw,
        ms(mid.wall.raw.median),
        ms(mid.wall.raw.p95),
        "1.00×",
        ms(mid.cpu.raw.median),
        "1.00×",
        "",
      ],
      [
        length,
        LABELS.toolnexus,
        ms(mid.wall.toolnexus.median),
        ms(mid.wall.toolnexus.p95),
        ratio(mid.wall.toolnexus.median, mid.wall.raw.median),
        ms(mid.cpu.toolnexus.median),
        ratio(mid.cpu.toolnexus.median, mid.cpu.raw.median),
        ratios.map((x) => x.toFixed(2)).join(" · "),
      ],
    );
  }
  return table(
    `Resume against the raw resume, pairs — the two alone in a process (${processes} processes; the median one shown), ${runs} rounds after ${warmup} warm-up per length`,
    [
      "prior msgs",
      "system",
      "resume median ms",
      "resume p95 ms",
      "median ×raw",
      "resume CPU ms (median)",
      "CPU ×raw",
      "median ×raw, each process",
    ],
    rows,
  );
}

export async function main() {
  const runs = Number(arg("runs", 100));
  const warmup = Number(arg("warmup", 30));
  const lengths = arg("lengths", "10,100,1000").split(",").map(Number);
  const mock = await startMock();
  try {
    const kernel = await importKernel();
    const sys = {};
    for (const name of NAMES) {
      sys[name] = await systems[name](mock.origin, kernel);
    }
    const rows = [];
    for (const length of lengths) {
      const prior = history(length);
      const { resume, suspend, bytes, cpu, transcript } = await measure(
        NAMES,
        sys,
        prior,
        runs,
        warmup,
      );
      const r = Object.fromEntries(NAMES.map((n) => [n, summarize(resume[n])]));
      const fastestPeer = Math.min(...PEERS.map((p) => r[p].median));
      const c = Object.fromEntries(NAMES.map((n) => [n, summarize(cpu[n])]));
      const fastestPeerCpu = Math.min(...PEERS.map((p) => c[p].median));
      for (const name of NAMES) {
        const b = summarize(bytes[name]).median;
        rows.push([
          length,
          LABELS[name],
          b,
          `${b - transcript >= 0 ? "+" : ""}${b - transcript}`,
          ms(r[name].median),
          ms(r[name].p95),
          ratio(r[name].median, r.raw.median),
          ratio(r[name].median, fastestPeer),
          ms(c[name].median),
          ratio(c[name].median, c.raw.median),
          ratio(c[name].median, fastestPeerCpu),
          ms(summarize(suspend[name]).median),
        ]);
      }
      rows.push([
        length,
        "(transcript's own JSON)",
        transcript,
        "+0",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
      ]);
    }
    const pairs = NAMES.includes("toolnexus") ? `${await pairsTable(mock.origin, lengths)}\n` : "";
    const out =
      pairs +
      table(
        `Suspend and resume — serialized state and resume time (string → restored → declined → final text), interleaved, ${runs} runs each after ${warmup} warm-up`,
        [
          "prior msgs",
          "system",
          "state bytes",
          "vs transcript JSON",
          "resume median ms",
          "resume p95 ms",
          "median ×raw",
          "median ×fastest peer",
          "resume CPU ms (median)",
          "CPU ×raw",
          "CPU ×fastest peer",
          "suspend median ms",
        ],
        rows,
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
    arg("origin"),
    arg("lengths").split(",").map(Number),
    Number(arg("pair-runs", 500)),
    Number(arg("pair-warmup", 500)),
  );
  process.exit(0);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
