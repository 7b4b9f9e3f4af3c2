/**
 * CPU profile of scenario 2's resume: the raw resume (A) and toolnexus' (B) in
 * alternating profiled blocks over loopback, self time per function per resume,
 * B − A, largest first (as ab-profile.mjs does for the loop).
 *
 *   node lib/resume-profile.mjs [--length 10] [--block 200] [--blocks 10] [--top 30] [--tail 0]
 *   (`--tail N`: also the N most negative rows, where the raw resume spends more)
 */
import { startMock, APPROVE_FINAL } from "./mock-server.mjs";
import { systems } from "./resume-systems.mjs";
import { importKernel } from "./build.mjs";
import { arg } from "./stats.mjs";
import { printDifferences, profileBlocks } from "./ab-blocks.mjs";

const LENGTH = Number(arg("length", 10));
const BLOCK = Number(arg("block", 200));
const BLOCKS = Number(arg("blocks", 10));
const TOP = Number(arg("top", 30));
const names = ["raw", "toolnexus"];
const kernel = await importKernel();
const mock = await startMock();
const prior = Array.from({ length: LENGTH }, (_, i) => ({
  role: i % 2 ? "assistant" : "user",
  content: `message ${i}: ${"lorem ipsum dolor sit amet ".repeat(4)}`.slice(0, 120),
}));
try {
  const sys = {};
  const states = {};
  for (const n of names) {
    sys[n] = await systems[n](mock.origin, kernel);
    states[n] = await sys[n].suspend(prior);
  }
  const once = async (n) => {
    const text = await sys[n].resume(states[n]);
    if (text !== APPROVE_FINAL) {
      throw new Error(`${n}: ${text}`);
    }
  };
  for (let i = 0; i < 300; i += 1) {
    for (const n of names) {
      await once(n);
    }
  }
  const calls = Object.fromEntries(names.map((n) => [n, () => once(n)]));
  const { self } = await profileBlocks(calls, names, { block: BLOCK, blocks: BLOCKS });
  const per = (BLOCK * BLOCKS) / 1000;
  console.log(`resume at ${LENGTH} prior messages, µs per resume under the profiler`);
  printDifferences(self, names, per, { top: TOP, tail: Number(arg("tail", 0)) });
} finally {
  await mock.stop();
}
