/**
 * `npm run bench:smoke` (from the root): every benchmark once, at tiny sizes, so that none of
 * them rots between the sessions that measure with them. No timing thresholds: a bench passes
 * when it exits 0 (its own checks included: the pipeline's "finished exactly once", the peers'
 * answers); the numbers it prints at these sizes mean nothing and are not kept.
 *
 * Offline: the product is bundled from source, models are mocks on 127.0.0.1, workers run under
 * the root's `wrangler dev` on free loopback ports and are stopped (process group, by id) by
 * lib/wrangler-dev.mjs / scripts/lib/dev-server.mjs, each bench in its own Node process with a
 * time limit (a bench that hangs is killed with its process group and fails).
 *
 * The peers and better-sqlite3 are devDependencies of bench/ (`npm ci --prefix bench`). Without
 * them the smoke still runs every bench's product side (`--systems toolnexus…`) and lists the
 * benches it had to skip; `--require-peers` makes a missing bench dependency a failure.
 *
 *   node bench/smoke.mjs [--jobs 3] [--only loop,pipeline] [--require-peers]
 */
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { arg, machine } from "./lib/stats.mjs";

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const requireHere = createRequire(path.join(BENCH, "package.json"));
const resolvable = (pkg) => {
  try {
    requireHere.resolve(`${pkg}/package.json`);
    return true;
  } catch {
    return fs.existsSync(path.join(BENCH, "node_modules", pkg)); // packages without ./package.json export
  }
};
const PEERS = Object.keys(
  JSON.parse(fs.readFileSync(path.join(BENCH, "package.json"), "utf8")).devDependencies,
).filter((p) => !["esbuild", "ws", "zod"].includes(p)); // those three come with the root's npm ci too
const missingPeers = PEERS.filter((p) => !resolvable(p));
const peersIn = missingPeers.length === 0;

const TINY_LOOP = ["--runs", "5", "--warmup", "5", "--processes", "1"];
const TINY_INPROC = ["--inproc-runs", "5", "--inproc-warmup", "5"];
/**
 * [name, script and arguments, packages of bench/ it cannot run without, arguments that drop
 * the peers when they are absent]. Sizes: the smallest that still runs every code path once.
 */
const BENCHES = [
  [
    "loop",
    ["loop.mjs", ...TINY_LOOP, ...TINY_INPROC],
    [],
    ["--systems", "toolnexus,toolnexus-json"],
  ],
  [
    "loop-stream",
    ["loop.mjs", "--stream", ...TINY_LOOP, ...TINY_INPROC],
    [],
    ["--systems", "toolnexus,toolnexus-json"],
  ],
  [
    "resume",
    [
      "resume.mjs",
      "--runs",
      "3",
      "--warmup",
      "2",
      "--pair-processes",
      "1",
      "--pair-runs",
      "5",
      "--pair-warmup",
      "5",
      "--lengths",
      "10,100",
    ],
    [],
    ["--systems", "toolnexus"],
  ],
  ["agents-tree", ["agents-tree.mjs", "--runs", "5", "--warmup", "2"], [], []],
  [
    "agents-edge",
    ["agents-edge.mjs", "--runs", "3", "--warmup", "1"],
    ["better-sqlite3", "@openai/agents", "@langchain/langgraph"],
    null,
  ],
  [
    "durable-writes",
    ["durable-writes.mjs", "--runs", "2", "--lengths", "10,100"],
    ["better-sqlite3"],
    null,
  ],
  ["schema-create", ["schema-create.mjs", "--runs", "5"], ["better-sqlite3"], null],
  ["sql-rows", ["sql-rows.mjs", "--statements", "20", "--rounds", "1"], [], []],
  ["small-values", ["small-values.mjs", "--statements", "20", "--rounds", "1"], [], []],
  ["long-threads", ["long-threads.mjs", "--lengths", "10", "--resumes", "1"], [], []],
  ["tracing", ["tracing.mjs", "--runs", "20", "--warmup", "10"], [], []],
  [
    "tracing-target",
    ["tracing-target.mjs", "--processes", "1", "--runs", "50", "--warmup", "10"],
    [],
    [],
  ],
  ["bundle", ["bundle.mjs", "--samples", "2"], [], []],
  // Under wrangler dev (each starts and stops its own):
  [
    "pipeline",
    ["pipeline.mjs", "--runs", "3", "--rounds", "1", "--timeout", "90", "--floor"],
    [],
    [],
  ],
  // The agents peer is a bench dependency (bench/package.json: its Babel 8 toolchain wants Node 22).
  ["edge-peers", ["edge-peers.mjs", "--smoke"], ["agents"], null],
  ["inbox", ["inbox.mjs", "--requests", "3", "--rounds", "1"], [], []],
  ["chat-protocols", ["chat-protocols.mjs", "--runs", "1", "--rounds", "1", "--live", "1"], [], []],
  ["recovery", ["recovery.mjs", "--kills", "1", "--runs", "1"], [], []],
  ["notify-isolation", ["notify-isolation.mjs", "1"], [], []],
];
// The longest ones first, so that --jobs keeps the cores busy to the end.
const ORDER = ["notify-isolation", "edge-peers", "pipeline", "recovery", "chat-protocols", "inbox"];
const LIMIT_MS = 150_000;

function runOne([name, args, needs, withoutPeers]) {
  const missing = needs.filter((p) => !resolvable(p));
  if (missing.length > 0) {
    return Promise.resolve({ name, status: "skipped", note: `needs ${missing.join(", ")}` });
  }
  const argv = peersIn || !withoutPeers ? args : [...args, ...withoutPeers];
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      cwd: BENCH,
      detached: true, // its own process group: a bench that hangs is stopped with its wrangler dev
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let output = "";
    const keep = (chunk) => {
      output = (output + chunk.toString("utf8")).slice(-8_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, LIMIT_MS);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const ok = code === 0 && !timedOut;
      resolve({
        name,
        status: ok ? "ok" : "FAILED",
        seconds,
        note: [
          timedOut ? `killed after ${LIMIT_MS / 1000} s` : ok ? "" : `exit ${code ?? signal}`,
          !peersIn && withoutPeers?.length ? "product systems only" : "",
        ]
          .filter(Boolean)
          .join("; "),
        output,
      });
    });
  });
}

const only = arg("only")?.split(",");
const jobs = Math.max(1, Number(arg("jobs", 3)));
const queue = BENCHES.filter(([name]) => !only || only.includes(name));
queue.sort((a, b) => {
  const rank = (n) => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length);
  return rank(a[0]) - rank(b[0]);
});
console.log(
  `bench smoke — ${new Date().toISOString()}, ${queue.length} benches, ${jobs} at a time; ${peersIn ? "peers installed" : `peers not installed (${missingPeers.join(", ")}): product systems only`}\nmachine: ${machine()}\n`,
);
const t0 = performance.now();
const results = [];
await Promise.all(
  Array.from({ length: jobs }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const result = await runOne(next);
      results.push(result);
      const time = result.seconds === undefined ? "" : ` (${result.seconds.toFixed(1)} s)`;
      console.log(
        `${result.status.padEnd(7)} ${result.name}${time}${result.note ? ` — ${result.note}` : ""}`,
      );
      if (result.status === "FAILED") {
        console.log(`--- last output of ${result.name} ---\n${result.output.trimEnd()}\n---`);
      }
    }
  }),
);
const failed = results.filter((r) => r.status === "FAILED");
const skipped = results.filter((r) => r.status === "skipped");
const requirePeers = process.argv.includes("--require-peers");
console.log(
  `\n${results.length - failed.length - skipped.length} ok, ${failed.length} failed, ${skipped.length} skipped in ${((performance.now() - t0) / 1000).toFixed(0)} s${skipped.length ? ` (skipped: ${skipped.map((s) => s.name).join(", ")}; \`npm ci --prefix bench\` installs what they need)` : ""}`,
);
process.exit(failed.length > 0 || (requirePeers && skipped.length > 0) ? 1 : 0);
