/**
 * `npm run bench`: every benchmark, one after the other, each in its own Node process
 * (so one's peers and heap do not weigh on the next). Extra arguments are passed on.
 */
import { spawnSync } from "node:child_process";
import { machine } from "./lib/stats.mjs";

const SCRIPTS = [
  ["loop.mjs"],
  ["loop.mjs", "--stream"],
  ["resume.mjs"],
  ["durable-writes.mjs"],
  ["bundle.mjs"],
  ["pipeline.mjs", "--floor"], // with the contract's floor beside the bare worker (section 4)
  ["inbox.mjs"],
  ["chat-protocols.mjs"],
  ["edge-peers.mjs"], // the edge peer (issue 46): needs this folder's `npm ci` (agents)
];
console.log(`toolnexus-edge benchmarks — ${new Date().toISOString()}\nmachine: ${machine()}\n`);
let failed = 0;
for (const [script, ...flags] of SCRIPTS) {
  console.log(`## ${[script, ...flags].join(" ")}\n`);
  const result = spawnSync(process.execPath, [script, ...flags, ...process.argv.slice(2)], {
    stdio: "inherit",
    timeout: 20 * 60_000,
  });
  if (result.status !== 0) {
    failed += 1;
    console.log(
      `${script} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})\n`,
    );
  }
}
process.exit(failed ? 1 : 0);
