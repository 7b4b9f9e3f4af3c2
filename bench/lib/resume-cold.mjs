/**
 * Scenario 2's resume in process (the mock as an injected `fetch`), the raw resume against
 * toolnexus, twice: as it is, and with the CPU caches evicted before each resume by walking
 * a large array (what the network stack's work between two model calls does over loopback).
 * How much the gap grows is how much of toolnexus' cost is memory and code touched cold.
 *
 *   node lib/resume-cold.mjs [--length 10] [--mib 8] [--runs 2000] [--warmup 1000]
 *   node lib/resume-cold.mjs --profile [--system toolnexus|raw] [--top 40]
 *
 * `--profile`: one system's resume profiled warm (A) and with the caches evicted (B),
 * self time per function per resume, B − A: which functions pay for running cold.
 */
import { importKernel } from "./build.mjs";
import { APPROVE_FINAL, mockFetch } from "./mock-server.mjs";
import { systems } from "./resume-systems.mjs";
import { history } from "../resume.mjs";
import { arg, summarize } from "./stats.mjs";
import { printDifferences, profileBlocks } from "./ab-blocks.mjs";

const LENGTH = Number(arg("length", 10));
const MIB = Number(arg("mib", 8));
const RUNS = Number(arg("runs", 2000));
const WARMUP = Number(arg("warmup", 1000));

globalThis.fetch = mockFetch; // both systems use the global fetch
const kernel = await importKernel();
const big = new Uint32Array((MIB * 1024 * 1024) / 4);
let touched = 0;
const evict = () => {
  for (let i = 0; i < big.length; i += 16) {
    touched += big[i]++;
  }
};

if (process.argv.includes("--profile")) {
  const name = arg("system", "toolnexus");
  const system = await systems[name]("http://mock.invalid", kernel);
  const state = await system.suspend(history(LENGTH));
  for (let i = 0; i < WARMUP; i += 1) {
    await system.resume(state);
  }
  const block = 200;
  const blocks = 10;
  const { self } = await profileBlocks(
    {
      warm: () => system.resume(state),
      cold: () => {
        evict();
        return system.resume(state);
      },
    },
    ["warm", "cold"],
    { block, blocks },
  );
  console.log(`${name}, ${LENGTH} prior messages; µs per resume under the profiler`);
  printDifferences(self, ["warm", "cold"], (block * blocks) / 1000, {
    top: Number(arg("top", 40)),
  });
  process.exit(0);
}

for (const mode of ["warm", "caches evicted"]) {
  const sys = {
    raw: await systems.raw("http://mock.invalid", kernel),
    toolnexus: await systems.toolnexus("http://mock.invalid", kernel),
  };
  const times = { raw: [], toolnexus: [] };
  for (let i = 0; i < WARMUP + RUNS; i += 1) {
    for (const name of i % 2 ? ["raw", "toolnexus"] : ["toolnexus", "raw"]) {
      const state = await sys[name].suspend(history(LENGTH));
      if (mode !== "warm") {
        evict();
      }
      const t0 = performance.now();
      const text = await sys[name].resume(state);
      const t = performance.now() - t0;
      if (text !== APPROVE_FINAL) {
        throw new Error(`${name}: unexpected final text ${JSON.stringify(text)}`);
      }
      if (i >= WARMUP) {
        times[name].push(t);
      }
    }
  }
  const raw = summarize(times.raw).median;
  const tn = summarize(times.toolnexus).median;
  console.log(
    `${mode.padEnd(14)} raw ${raw.toFixed(3)} ms, toolnexus ${tn.toFixed(3)} ms: ${(tn / raw).toFixed(2)}×, gap ${Math.round((tn - raw) * 1000)} µs`,
  );
}
console.log(`(${LENGTH} prior messages, ${MIB} MiB walked; checksum ${touched % 10})`);
