/**
 * Two builds of the kernel against the same raw loop, interleaved in one process: the
 * kernel at a git revision (A, default HEAD) and the working tree (B). For deciding
 * whether a kernel change moved scenario 1 (or its streamed variant) before it is
 * committed: both builds see the same machine load, heap and mock, round by round.
 *
 *   node lib/ab-kernels.mjs [--rev HEAD] [--stream] [--system toolnexus-ontext] [--runs 2000] [--warmup 500]
 *   node lib/ab-kernels.mjs --resume [--length 10] …   (scenario 2: the resume is timed)
 *
 * Prints each build's median and mean (wall and client CPU) as a ratio to the raw loop.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { importTs, ROOT } from "./build.mjs";
import { startMock, LOOP_FINAL, APPROVE_FINAL } from "./mock-server.mjs";
import { systems as plainSystems } from "./loop-systems.mjs";
import { systems as streamSystems } from "./stream-systems.mjs";
import { systems as resumeSystems } from "./resume-systems.mjs";
import { arg, shuffled, summarize } from "./stats.mjs";

const STREAM = process.argv.includes("--stream");
const RESUME = process.argv.includes("--resume");
const LENGTH = Number(arg("length", 10));
const REV = arg("rev", "HEAD");
const SYSTEM = arg("system", "toolnexus");
const RUNS = Number(arg("runs", 2000));
const WARMUP = Number(arg("warmup", 500));
const systems = STREAM ? streamSystems : plainSystems;

/** Scenario 2 as a timed `run()`: suspend first (not timed), then the resume is the run. */
async function resumeRun(name, origin, kernel) {
  const system = await resumeSystems[name](origin, kernel);
  const prior = Array.from({ length: LENGTH }, (_, i) => ({
    role: i % 2 ? "assistant" : "user",
    content: `message ${i}: ${"lorem ipsum dolor sit amet ".repeat(4)}`.slice(0, 120),
  }));
  return {
    prepare: () => system.suspend(prior),
    run: (state) => system.resume(state),
  };
}

async function setupOne(name, origin, kernel) {
  if (RESUME) {
    return resumeRun(name === "toolnexus-ontext" ? "toolnexus" : name, origin, kernel);
  }
  const run = await systems[name](origin, kernel);
  return { prepare: async () => undefined, run };
}

/** The kernel as it was at `rev`: `git archive` of src/ into a temporary folder, bundled. */
async function kernelAt(rev) {
  const dir = mkdtempSync(path.join(tmpdir(), "tn-ab-"));
  try {
    const tar = execFileSync("git", ["-C", ROOT, "archive", rev, "src"], {
      maxBuffer: 1 << 28,
    });
    execFileSync("tar", ["-x", "-C", dir], { input: tar });
    return await importTs(path.relative(ROOT, path.join(dir, "src/core/index.ts")), "core-a", {
      external: ["zod"],
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const kernels = {
  A: await kernelAt(REV),
  B: await importTs("src/core/index.ts", "core-b", { external: ["zod"] }),
};
const mock = await startMock();
try {
  const run = {
    raw: await setupOne("raw", mock.origin),
    A: await setupOne(SYSTEM, mock.origin, kernels.A),
    B: await setupOne(SYSTEM, mock.origin, kernels.B),
  };
  const FINAL = RESUME ? APPROVE_FINAL : LOOP_FINAL;
  const names = Object.keys(run);
  const wall = Object.fromEntries(names.map((n) => [n, []]));
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < WARMUP + RUNS; i += 1) {
    for (const name of shuffled(names)) {
      const state = await run[name].prepare();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const text = await run[name].run(state);
      const t = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (text !== FINAL) {
        throw new Error(`${name}: unexpected final text ${JSON.stringify(text)}`);
      }
      if (i >= WARMUP) {
        wall[name].push(t);
        cpu[name].push((c.user + c.system) / 1000);
      }
    }
  }
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const base = { wall: summarize(wall.raw), cpu: summarize(cpu.raw) };
  const baseMean = { wall: mean(wall.raw), cpu: mean(cpu.raw) };
  console.log(
    `${RESUME ? `resume at ${LENGTH} messages` : STREAM ? "streamed" : "plain"} ${SYSTEM}: A = ${REV}, B = working tree; ${RUNS} rounds after ${WARMUP}`,
  );
  for (const name of names) {
    const w = summarize(wall[name]);
    const c = summarize(cpu[name]);
    console.log(
      `${name.padEnd(4)} wall median ${w.median.toFixed(3)} ms ${(w.median / base.wall.median).toFixed(3)}×` +
        `  mean ${(mean(wall[name]) / baseMean.wall).toFixed(3)}×` +
        `  cpu median ${(c.median / base.cpu.median).toFixed(3)}×  mean ${(mean(cpu[name]) / baseMean.cpu).toFixed(3)}×`,
    );
  }
} finally {
  await mock.stop();
}
