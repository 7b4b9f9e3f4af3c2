/**
 * Scenario 4c — the fault schedule (issue 38 item 6): `--runs` runs of the wave-3 shapes in
 * turn (a webhook approval, a sub-agent tree whose child asks, a quorum vote with an edit,
 * chat, AG-UI and A2A answers, an MCP OAuth sign-in; bench/lib/fault-schedule.mjs says how
 * each is driven and judged), `--concurrency` at a time, against `wrangler dev` serving
 * test/fixtures/fault-schedule-worker.ts, which is killed (SIGKILL to wrangler and workerd)
 * every `--kill-every` seconds and started again on the same state and port. Reported per
 * shape: done, lost, doubled tool runs, stuck; in total: requests a kill cut (each repeated
 * by its client; wrangler dev's proxy 503s among them, apart), 5xx responses of our worker,
 * sign-ins redone, how often the MCP tool ran and how many of its calls were sent again and
 * answered by their idempotency key, kills and how long a restart took.
 *
 *   node bench/fault-schedule.mjs [--runs 1000] [--kill-every 30] [--concurrency 24]
 *
 * Its seed runs in the test suite: test/dev/fault-schedule.test.mjs (14 runs, one kill).
 */
import { fileURLToPath } from "node:url";
import { runFaultSchedule, tally } from "./lib/fault-schedule.mjs";
import { startFaultServers } from "./lib/fault-server.mjs";
import { arg, machine, ms, summarize, table } from "./lib/stats.mjs";

export async function main() {
  const runs = Number(arg("runs", 1000));
  const killEvery = Number(arg("kill-every", 30)) * 1000;
  const concurrency = Number(arg("concurrency", 24));
  const servers = await startFaultServers({ cwd: arg("cwd", undefined) });
  let current = servers.server;
  let lastKill = Date.now();
  let outcome;
  try {
    outcome = await runFaultSchedule({
      runs,
      concurrency,
      server: servers.server,
      restart: async () => {
        current = await servers.restart();
        lastKill = Date.now(); // the next kill is --kill-every after the server is back
        return current;
      },
      vars: servers.vars,
      oauth: servers.oauth,
      consent: servers.consent,
      killWhen: () => Date.now() - lastKill >= killEvery,
      log: (line) => console.error(line),
    });
    current = outcome.server;
  } finally {
    await servers.close(current);
  }
  const rows = [...tally(outcome)]
    .sort(([a], [b]) => (a === "all") - (b === "all")) // the total last
    .map(([shape, r]) => [shape, r.runs, r.done, r.lost, r.doubled, r.stuck, r.error]);
  const restart = summarize(outcome.restarts);
  const out = [
    table(
      `Fault schedule — ${runs} runs, ${concurrency} at a time, wrangler dev killed (SIGKILL) every ${killEvery / 1000} s and restarted on the same state`,
      ["shape", "runs", "done", "lost", "doubled tool runs", "stuck", "harness error"],
      rows,
    ),
    table(
      "The kills",
      [
        "kills",
        "restart p50 ms",
        "restart max ms",
        "requests cut (repeated)",
        "of them wrangler's proxy 503 (worker restarted mid-request)",
        "5xx from our worker",
        "sign-ins redone (link opened again)",
        "MCP whoami runs / sign-in runs done",
        "MCP calls sent again, answered by key",
        "wall time",
      ],
      [
        [
          outcome.kills,
          ms(restart.median),
          ms(restart.max),
          outcome.cuts,
          outcome.proxyRestarts.length,
          outcome.fiveXX.length,
          outcome.signInsRedone,
          `${outcome.mcpWhoami.calls} / ${outcome.mcpWhoami.runsDone}`,
          outcome.mcpWhoami.deduped,
          `${(outcome.elapsedMs / 60_000).toFixed(1)} min`,
        ],
      ],
    ),
  ].join("\n");
  console.log(out);
  for (const line of [
    ...outcome.fiveXX.slice(0, 10),
    ...outcome.proxyRestarts.slice(0, 5),
    ...outcome.results
      .filter((r) => r.outcome !== "done")
      .slice(0, 20)
      .map((r) => `${r.shape} ${r.runId ?? ""}: ${r.outcome} ${r.problem ?? ""}`),
  ]) {
    console.log(`  ${line}`);
  }
  console.log(`machine: ${machine()}\n`);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
