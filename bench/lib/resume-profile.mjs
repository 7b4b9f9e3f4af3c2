/**
 * CPU profile of scenario 2's resume: the raw resume (A) and toolnexus' (B) in
 * alternating profiled blocks over loopback, self time per function per resume,
 * B − A, largest first (as ab-profile.mjs does for the loop).
 *
 *   node lib/resume-profile.mjs [--length 10] [--block 200] [--blocks 10] [--top 30]
 */
import { Session } from "node:inspector/promises";
import { startMock, APPROVE_FINAL } from "./mock-server.mjs";
import { systems } from "./resume-systems.mjs";
import { importKernel } from "./build.mjs";
import { arg } from "./stats.mjs";

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
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 50 });
  const self = { raw: new Map(), toolnexus: new Map() };
  for (let b = 0; b < BLOCKS; b += 1) {
    for (const n of b % 2 ? names : [...names].reverse()) {
      await session.post("Profiler.start");
      for (let i = 0; i < BLOCK; i += 1) {
        await once(n);
      }
      const { profile } = await session.post("Profiler.stop");
      const byId = new Map(profile.nodes.map((x) => [x.id, x]));
      profile.samples.forEach((id, i) => {
        const f = byId.get(id).callFrame;
        const key = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\//, "")}:${f.lineNumber + 1}`;
        self[n].set(key, (self[n].get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
      });
    }
  }
  const per = (BLOCK * BLOCKS) / 1000;
  const keys = new Set([...self.raw.keys(), ...self.toolnexus.keys()]);
  console.log(`resume at ${LENGTH} prior messages, µs per resume under the profiler`);
  console.log("    B−A       A       B  function (A = raw, B = toolnexus)");
  [...keys]
    .filter((k) => !k.startsWith("(idle)"))
    .map((k) => [k, (self.raw.get(k) ?? 0) / per, (self.toolnexus.get(k) ?? 0) / per])
    .sort((x, y) => y[2] - y[1] - (x[2] - x[1]))
    .slice(0, TOP)
    .forEach(([k, a, b]) => {
      console.log(
        `${(b - a).toFixed(1).padStart(7)} ${a.toFixed(1).padStart(7)} ${b.toFixed(1).padStart(7)}  ${k}`,
      );
    });
} finally {
  await mock.stop();
}
