/**
 * The A/B profiles' shared part (ab-profile.mjs, resume-profile.mjs): two systems run in
 * alternating blocks, each block profiled through node:inspector, self time summed per
 * function; then the table of self time per function per run, B − A, largest first.
 * Alternating blocks keep machine load from landing on one side only.
 */
import { Session } from "node:inspector/promises";

/**
 * Runs `blocks` blocks of `block` calls of each of `names` (order alternating per block).
 * Returns self time per function (ms) and wall time (ms) per system.
 */
export async function profileBlocks(calls, names, { block, blocks }) {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 50 });
  const self = Object.fromEntries(names.map((n) => [n, new Map()]));
  const wall = Object.fromEntries(names.map((n) => [n, 0]));
  for (let b = 0; b < blocks; b += 1) {
    for (const n of b % 2 ? names : [...names].reverse()) {
      await session.post("Profiler.start");
      const t0 = performance.now();
      for (let i = 0; i < block; i += 1) {
        await calls[n]();
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
  session.disconnect();
  return { self, wall };
}

/**
 * Prints µs per run (`per` runs per ms of summed time), B − A: the `top` largest
 * differences, then the `tail` most negative (where A spends more).
 */
export function printDifferences(self, [A, B], per, { top, tail = 0 }) {
  console.log(`    B−A       A       B  function (A = ${A}, B = ${B})`);
  const keys = new Set([...self[A].keys(), ...self[B].keys()]);
  [...keys]
    .filter((k) => !k.startsWith("(idle)"))
    .map((k) => [k, (self[A].get(k) ?? 0) / per, (self[B].get(k) ?? 0) / per])
    .sort((x, y) => y[2] - y[1] - (x[2] - x[1]))
    .filter((_, i, all) => i < top || i >= all.length - tail)
    .forEach(([k, a, b], i, shown) => {
      if (tail > 0 && i === Math.min(top, shown.length - tail) && shown.length > top) {
        console.log("    …  (the most negative: where A spends more)");
      }
      console.log(
        `${(b - a).toFixed(1).padStart(7)} ${a.toFixed(1).padStart(7)} ${b.toFixed(1).padStart(7)}  ${k}`,
      );
    });
}
