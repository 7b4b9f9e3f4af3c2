/**
 * The seed of the fault schedule (issue 38 item 6; the long run is bench/fault-schedule.mjs):
 * a run of every wave-3 shape — a webhook approval, a sub-agent tree whose child asks, a
 * quorum vote with an edit, chat, AG-UI and A2A answers, an MCP OAuth sign-in — twice over,
 * against `wrangler dev`, which is killed (SIGKILL, no shutdown) once while they are in flight
 * and started again on the same state. Nothing may be lost, no tool may run twice, no run may
 * be stuck, and no response may be a 5xx. The kill lands when half the runs are suspended;
 * whatever else is in flight then, the outcome must be the same.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runFaultSchedule, SHAPES, tally } from "../../bench/lib/fault-schedule.mjs";
import { startFaultServers } from "../../bench/lib/fault-server.mjs";

const HARD_LIMIT_MS = 240_000; // two wrangler dev starts on a busy machine, and the runs
setTimeout(() => {
  console.error(`fault-schedule.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

let servers;
let current;

after(async () => {
  await servers?.close(current);
});

test("every shape through a kill of wrangler dev: 0 lost, 0 doubled, 0 stuck, 0 5xx", {
  timeout: 220_000,
}, async () => {
  servers = await startFaultServers();
  current = servers.server;
  const runs = SHAPES.length * 2;
  const outcome = await runFaultSchedule({
    runs,
    concurrency: runs,
    server: servers.server,
    restart: async () => {
      current = await servers.restart();
      return current;
    },
    vars: servers.vars,
    oauth: servers.oauth,
    consent: servers.consent,
    // One kill, once half the runs wait on their request (their answers are on the way).
    killWhen: (p) => p.kills === 0 && p.suspended >= runs / 2,
    settleMs: 60_000,
    log: (line) => console.error(line),
  });
  current = outcome.server;
  const all = tally(outcome).get("all");
  const problems = outcome.results
    .filter((r) => r.outcome !== "done")
    .map((r) => `${r.shape} ${r.runId}: ${r.outcome} ${r.problem ?? ""}`);
  assert.equal(outcome.kills, 1, "the server was killed once");
  assert.deepEqual(problems, [], "every run done");
  assert.deepEqual(
    { runs: all.runs, done: all.done, lost: all.lost, doubled: all.doubled, stuck: all.stuck },
    { runs, done: runs, lost: 0, doubled: 0, stuck: 0 },
  );
  assert.deepEqual(outcome.fiveXX, [], "no 5xx from our worker");
  // The MCP server's own count: the tool behind each sign-in ran once per run.
  assert.equal(outcome.mcpWhoami.calls, outcome.mcpWhoami.runsDone);
});
