/**
 * A/B CPU profile of scenario 1: the raw loop (A) and toolnexus (B) run in alternating
 * blocks, each block profiled through node:inspector; self time per function is summed
 * per system and printed per run, B − A, largest first. Alternating blocks keep machine
 * load from landing on one side only.
 *
 *   node lib/ab-profile.mjs [--inproc] [--stream] [--a raw] [--b toolnexus-ontext] [--block 200] [--blocks 10] [--top 40]
 *   (--inproc: the mock as an injected fetch, no sockets; default block 2000 then)
 */
import { startMock, mockFetch } from "./mock-server.mjs";
import { systems as plainSystems } from "./loop-systems.mjs";
import { systems as streamSystems } from "./stream-systems.mjs";
import { importKernel } from "./build.mjs";
import { arg } from "./stats.mjs";
import { printDifferences, profileBlocks } from "./ab-blocks.mjs";

const inproc = process.argv.includes("--inproc");
const BLOCK = Number(arg("block", inproc ? 2000 : 200));
const BLOCKS = Number(arg("blocks", 10));
const TOP = Number(arg("top", 40));
// --stream: the streamed variant (stream-systems.mjs); --a and --b pick the systems
// (default raw and toolnexus).
const systems = process.argv.includes("--stream") ? streamSystems : plainSystems;
const A = arg("a", "raw");
const B = arg("b", "toolnexus");
const names = [A, B];
const kernel = await importKernel();
const mock = await startMock();
try {
  const run = {};
  for (const n of names) {
    run[n] = await systems[n](
      inproc ? "http://mock.invalid" : mock.origin,
      kernel,
      inproc ? mockFetch : undefined,
    );
  }
  for (let i = 0; i < 500; i += 1) {
    for (const n of names) {
      await run[n]();
    }
  }
  const { self, wall } = await profileBlocks(run, names, { block: BLOCK, blocks: BLOCKS });
  const per = (BLOCK * BLOCKS) / 1000; // ms → µs per run
  const busy = (m) =>
    [...m].filter(([k]) => !k.startsWith("(idle)")).reduce((s, [, v]) => s + v, 0) / per;
  console.log(
    `${inproc ? "in-process" : "loopback"}, ${BLOCK * BLOCKS} runs each; µs per run under the profiler`,
  );
  for (const n of names) {
    console.log(`  ${n}: wall ${(wall[n] / per).toFixed(0)}, busy ${busy(self[n]).toFixed(0)}`);
  }
  printDifferences(self, names, per, { top: TOP, tail: 6 });
} finally {
  await mock.stop();
}
