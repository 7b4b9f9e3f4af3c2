/**
 * Scenario 4b — kill → resumed under `wrangler dev`. Per kill: the product worker (a built
 * snapshot, its state folder kept across restarts) gets `--runs` runs that suspend, then a
 * signed approval for each, all at once; the moment the first decision is answered the
 * worker is killed (SIGKILL to workerd: no shutdown, in-memory queues gone), so some
 * decisions are recorded and not yet applied, some drives are cut mid-turn. The worker is
 * restarted on the same state and every run is followed to `done`. The model is the
 * scripted fake (scripts/lib/fake-model.mjs) answering after `--model-delay` ms, so the
 * drives that apply the decisions are waiting on it (mid-turn) when the kill lands; with
 * the in-process demo model every drive had finished before the first answer (a first
 * version of this bench recovered nothing to measure).
 *
 * A run counts as recovered when it finished after the kill (`updatedAt` later than the
 * kill). Reported: kill → done and restart (the worker answering again) → done, p50 and
 * max over every recovered run of every kill, and what the runs were at the end (nothing
 * may be lost: every run whose decision was recorded must finish, its refund once).
 *
 *   node recovery.mjs [--kills 20] [--runs 10] [--model-delay 400]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "./lib/build.mjs";
import { startWranglerDev, snapshotWorker } from "./lib/wrangler-dev.mjs";
import { summarize, table, ms, arg, machine } from "./lib/stats.mjs";
import { API_TOKEN, APPROVER_GROUPS, RECEIPT_KEY, SECRET, signed } from "./pipeline.mjs";
import { startFakeModel } from "../scripts/lib/fake-model.mjs";

const auth = { authorization: `Bearer ${API_TOKEN}` };
const sleep = (ms_) => new Promise((r) => setTimeout(r, ms_));

async function json(response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
  }
}

async function view(origin, runId) {
  return json(await fetch(`${origin}/v1/runs/${encodeURIComponent(runId)}`, { headers: auth }));
}

async function pendingRuns(origin, runs) {
  const ids = await Promise.all(
    Array.from({ length: runs }, async () => {
      const started = await fetch(`${origin}/v1/runs`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ agent: "support", input: "Please refund $120 on order 42" }),
      });
      return (await json(started)).runId;
    }),
  );
  const pending = [];
  for (const runId of ids) {
    for (let v = await view(origin, runId); ; v = await view(origin, runId)) {
      if (v.status === "pending") {
        pending.push(v);
        break;
      }
      await sleep(20);
    }
  }
  return pending;
}

export async function main() {
  const kills = Number(arg("kills", 20));
  const runs = Number(arg("runs", 10));
  const snapshot = await snapshotWorker(ROOT);
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "toolnexus-recovery-"));
  // A model that takes MODEL_DELAY_MS per reply, so a drive is mid-turn when the kill lands.
  const model = await startFakeModel({ delayMs: Number(arg("model-delay", 400)) });
  const vars = {
    API_TOKEN,
    WEBHOOK_SECRET: SECRET,
    RECEIPT_KEY,
    APPROVER_GROUPS,
    LLM_BASE_URL: `${model.url}/v1`,
    LLM_STYLE: "openai",
    LLM_MODEL: "fake-model",
  };
  const start = () =>
    startWranglerDev({ cwd: snapshot.dir, ready: "/healthz", vars, persistTo: state });
  const fromKill = [];
  const fromRestart = [];
  const problems = [];
  let total = 0;
  let finishedBefore = 0;
  let undecided = 0;
  try {
    for (let k = 0; k < kills; k += 1) {
      let server = await start();
      const pending = await pendingRuns(server.origin, runs);
      total += pending.length;
      // Every approval at once; the worker dies as soon as the first one is answered.
      let first;
      const answered = new Promise((resolve) => {
        first = resolve;
      });
      for (const run of pending) {
        const body = JSON.stringify({
          runId: run.runId,
          requestId: run.pending.id,
          decision: "approve",
        });
        fetch(`${server.origin}/v1/decisions`, { method: "POST", headers: signed(body), body })
          .then((r) => r.arrayBuffer())
          .then(first, () => {});
      }
      await answered;
      await server.crash();
      const killedAt = Date.now();
      server = await start();
      const readyAt = Date.now();
      for (const run of pending) {
        const deadline = Date.now() + 60_000;
        let v = await view(server.origin, run.runId);
        while (v.status !== "done" && v.decisions.length > 0 && Date.now() < deadline) {
          await sleep(50);
          v = await view(server.origin, run.runId);
        }
        if (v.decisions.length === 0) {
          undecided += 1; // its decision never reached storage: the caller would retry it
          continue;
        }
        if (v.status !== "done") {
          problems.push(`${run.runId}: ${v.status} a minute after the restart`);
          continue;
        }
        const refunds = v.toolCalls.filter((c) => c.name === "refund_order").length;
        if (refunds !== 1) {
          problems.push(`${run.runId}: refund_order ran ${refunds} times`);
        }
        const doneAt = Date.parse(v.updatedAt);
        if (doneAt <= killedAt) {
          finishedBefore += 1;
          continue;
        }
        fromKill.push(doneAt - killedAt);
        fromRestart.push(Math.max(0, doneAt - readyAt));
      }
      await server.stop();
      console.error(
        `  kill ${k + 1}/${kills}: ${fromKill.length} recovered so far, ${undecided} undecided, ${problems.length} problems; restart took ${readyAt - killedAt} ms, the kill's runs settled ${Date.now() - readyAt} ms after it`,
      );
    }
  } finally {
    await model.close();
    snapshot.remove();
    fs.rmSync(state, { recursive: true, force: true });
  }
  const a = summarize(fromKill);
  const b = summarize(fromRestart);
  const out = table(
    `Recovery — ${kills} kills (SIGKILL of wrangler dev at the first answer of ${runs} simultaneous approvals; the fake model takes ${arg("model-delay", 400)} ms per reply, so drives are mid-turn), restart on the same state`,
    [
      "runs",
      "finished before the kill",
      "decision not recorded",
      "recovered after the restart",
      "kill→done p50 ms",
      "kill→done max ms",
      "restart→done p50 ms",
      "restart→done max ms",
      "lost or run twice",
    ],
    [
      [
        total,
        finishedBefore,
        undecided,
        fromKill.length,
        ms(a.median),
        ms(a.max),
        ms(b.median),
        ms(b.max),
        problems.length,
      ],
    ],
  );
  console.log(out);
  for (const line of problems.slice(0, 10)) {
    console.log(`  ${line}`);
  }
  console.log(`machine: ${machine()}\n`);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
