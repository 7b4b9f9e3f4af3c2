/**
 * Where the no-op tracer's cost goes: scenario 1 with no tracer (A) and with the API's
 * no-op tracer (B, or `--b constant|recording|sdk|edge`) in alternating profiled blocks (ab-blocks.mjs), self
 * time per function per run, B − A, largest first.
 *
 *   node lib/tracing-profile.mjs [--b noop] [--block 2000] [--blocks 10] [--top 30]
 */
import { printDifferences, profileBlocks } from "./ab-blocks.mjs";
import { arg } from "./stats.mjs";
import { tracingVariants } from "./tracing-variants.mjs";

const BLOCK = Number(arg("block", 2000));
const BLOCKS = Number(arg("blocks", 10));
const B = arg("b", "noop");
const names = ["none", B];
const { runs: variants, exporter } = await tracingVariants();
// The edge tracer's queue is bounded (2048): flush after every run, so the profile shows
// its encoding and not a full queue's drops (the flush "sends" to a fetch that answers at once).
const runs = {
  ...variants,
  edge: async () => {
    await variants.edge();
    await exporter.flush();
  },
};
for (let i = 0; i < 1000; i += 1) {
  for (const n of names) {
    await runs[n]();
  }
}
const { self, wall } = await profileBlocks(runs, names, { block: BLOCK, blocks: BLOCKS });
const per = (BLOCK * BLOCKS) / 1000; // ms → µs per run
console.log(`in-process, ${BLOCK * BLOCKS} runs each; µs per run under the profiler`);
for (const n of names) {
  console.log(`  ${n}: wall ${(wall[n] / per).toFixed(1)}`);
}
printDifferences(self, names, per, { top: Number(arg("top", 30)), tail: 6 });
