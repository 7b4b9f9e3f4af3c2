/**
 * A/B CPU profile of scenario 1: the raw loop (A) and toolnexus (B) run in alternating
 * blocks, each block profiled through node:inspector; self time per function is summed
 * per system and printed per run, B − A, largest first. Alternating blocks keep machine
 * load from landing on one side only.
 *
 *   node lib/ab-profile.mjs [--inproc] [--stream] [--a raw] [--b toolnexus-ontext] [--block 200] [--blocks 10] [--top 40]
 *   (--inproc: the mock as an injected fetch, no sockets; default block 2000 then)
 */
import { Session } from "node:inspector/promises";
import { startMock, mockFetch } from "./mock-server.mjs";
import { systems as plainSystems } from "./loop-systems.mjs";
import { systems as streamSystems } from "./stream-systems.mjs";
import { importKernel } from "./build.mjs";
import { arg } from "./stats.mjs";

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
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 50 });
  const self = { [A]: new Map(), [B]: new Map() };
  const wall = { [A]: 0, [B]: 0 };
  for (let b = 0; b < BLOCKS; b += 1) {
    for (const n of b % 2 ? names : [...names].reverse()) {
      await session.post("Profiler.start");
      const t0 = performance.now();
      for (let i = 0; i < BLOCK; i += 1) {
        await run[n]();
      }
      wall[n] += performance.now() - t0;
      const { profile } = await session.post("Profiler.stop");
      const byId = new Map(profile.nodes.map((x) => [x.id, x]));
      profile.samples.forEach((id, i) => {
        const f = byId.get(id).callFrame;
        const key = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\//, "")}:${f.lineNumber + 1}`;
        self[n].set(key, (self[n].get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
      });
    }
  }
  const per = (BLOCK * BLOCKS) / 1000; // ms → µs per run
  const busy = (m) =>
    [...m].filter(([k]) => !k.startsWith("(idle)")).reduce((s, [, v]) => s + v, 0) / per;
  console.log(
    `${inproc ? "in-process" : "loopback"}, ${BLOCK * BLOCKS} runs each; µs per run under the profiler`,
  );
  for (const n of names) {
    console.log(`  ${n}: wall ${(wall[n] / per).toFixed(0)}, busy ${busy(self[n]).toFixed(0)}`);
  }
  console.log(`    B−A       A       B  function (A = ${A}, B = ${B})`);
  const keys = new Set([...self[A].keys(), ...self[B].keys()]);
  [...keys]
    .filter((k) => !k.startsWith("(idle)"))
    .map((k) => [k, (self[A].get(k) ?? 0) / per, (self[B].get(k) ?? 0) / per])
    .sort((x, y) => y[2] - y[1] - (x[2] - x[1]))
    .filter((_, i, all) => i < TOP || i >= all.length - 6)
    .forEach(([k, a, b], i, shown) => {
      if (i === Math.min(TOP, shown.length - 6) && shown.length > TOP) {
        console.log("    …  (the most negative: where A spends more)");
      }
      console.log(
        `${(b - a).toFixed(1).padStart(7)} ${a.toFixed(1).padStart(7)} ${b.toFixed(1).padStart(7)}  ${k}`,
      );
    });
} finally {
  await mock.stop();
}
