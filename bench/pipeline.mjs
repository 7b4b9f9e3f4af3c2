/**
 * Scenario 4 — pipeline throughput under `wrangler dev` (workerd, local Durable
 * Objects and queues), driven from Node over loopback. N runs in parallel, each:
 * POST /v1/runs → (queue → Durable Object → demo model → suspends) → SSE `pending` →
 * signed POST /v1/decisions (Standard Webhooks, approve) → (queue → resume → done) →
 * SSE `done`. The baseline is the bare pipeline worker in pipeline-baseline/ (per leg
 * one Durable Object write, one queue hop, one write; no agent), run by the same
 * client in the same invocation, before the product. Each worker is built once into a
 * temporary snapshot that wrangler dev serves (so concurrent source edits cannot
 * reload it mid-run). Afterwards every run is checked:
 * finished exactly once, nothing lost, nothing duplicated.
 *
 *   node pipeline.mjs [--runs 200] [--rounds 2] [--timeout 240] [--floor] [--ab <checkout>]
 *     --floor adds the contract's floor (pipeline-floor/: the product's promises kept by hand,
 *     nothing else) between the two; --ab adds the product built from another checkout of this
 *     repository (a worktree), interleaved with this one's in every round: a change's
 *     before/after read in one run, under the same load
 *   node pipeline.mjs --profile .build/pipeline.cpuprofile [--profile-only product|baseline]
 *     also records a CPU profile of the worker isolate (through wrangler's inspector port);
 *     add `--no-minify` to build the workers unminified, so the profile names functions
 */
import path from "node:path";
import { createHmac, randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { BENCH, ROOT } from "./lib/build.mjs";
import { startWranglerDev, readVars, snapshotWorker } from "./lib/wrangler-dev.mjs";
import { summarize, table, ms, ratio, arg, machine } from "./lib/stats.mjs";
import { startProfile } from "./lib/inspector-profile.mjs";
import { workerdCpuMs } from "./lib/workerd-cpu.mjs";
import fs from "node:fs";

const vars = readVars(path.join(ROOT, ".dev.vars.example"));
export const API_TOKEN = vars.API_TOKEN;
// The demo agent's rules name these groups; without them every run is a config error.
export const APPROVER_GROUPS = vars.APPROVER_GROUPS.replace(/^'(.*)'$/, "$1");
// .dev.vars.example leaves the secrets for `npm start` to generate; the benchmark makes its own.
export const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
// Every decision signs a receipt: without an Ed25519 seed the decision is a 500 config_error.
export const RECEIPT_KEY = randomBytes(32).toString("base64");

/** Standard Webhooks headers for `body`: v1,base64(HMAC-SHA256(key, "id.timestamp.body")). */
export function signed(body) {
  const id = `msg_${randomBytes(12).toString("hex")}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(SECRET.replace(/^whsec_/, ""), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": `v1,${signature}`,
  };
}

/** Reads a Server-Sent Events response; `onEvent({ id, event, data })` for each event. */
async function readSse(response, onEvent) {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = { id: undefined, event: "message", data: "" };
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) {
          event.id = line.slice(3).trim();
        } else if (line.startsWith("event:")) {
          event.event = line.slice(6).trim();
        } else if (line.startsWith("data:")) {
          event.data += line.slice(5).trim();
        }
      }
      if (block.split("\n").some((l) => l.startsWith("data:"))) {
        if (onEvent(event) === false) {
          return;
        }
      }
    }
  }
}

export async function cycle(origin, signal) {
  // What the client had seen when it failed: which leg a stalled cycle stalled in.
  const progress = { runId: undefined, seen: [], decided: false };
  try {
    return await cycleOf(origin, signal, progress);
  } catch (error) {
    // A new Error: an abort's DOMException has a read-only `message`.
    const failure = new Error(error instanceof Error ? error.message : String(error), {
      cause: error,
    });
    failure.message += ` (run ${progress.runId ?? "not started"}; events seen: ${progress.seen.join(",") || "none"}; decision ${progress.decided ? "sent" : "not sent"}; stream reopened ${progress.reopened ?? 0} times)`;
    throw Object.assign(failure, { runId: progress.runId });
  }
}

async function cycleOf(origin, signal, progress) {
  const auth = { authorization: `Bearer ${API_TOKEN}` };
  const t0 = performance.now();
  const started = await fetch(`${origin}/v1/runs`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    // A $120 refund needs one approval and names no approvers (the demo's deletions now need a
    // support lead): the round trip measured is the same one as before the approver rules.
    body: JSON.stringify({ agent: "support", input: "Please refund $120 on order 42" }),
    signal,
  });
  if (started.status !== 202) {
    throw new Error(`start: HTTP ${started.status} ${await started.text()}`);
  }
  const { runId } = await started.json();
  progress.runId = runId;
  const seen = progress.seen;
  let t1;
  let t2;
  let t3;
  let resumedAt;
  let decided;
  // A stream that ends before `done` is reopened after the last event seen (Last-Event-ID), as
  // the typed client does: the server ends a stream whose object was reset (durable/thread/event-hub.ts).
  let lastEventId;
  let ended = false;
  // A refused or failed decision ends the cycle at once: the run stays pending, and a client
  // waiting for its `done` would look like a stalled stream.
  const decisionFailed = new AbortController();
  const streamSignal = AbortSignal.any([signal, decisionFailed.signal]);
  for (let attempt = 0; !ended; attempt += 1) {
    if (attempt > 3) {
      throw new Error(`run ${runId}: stream ended early ${attempt} times (${seen.join(",")})`);
    }
    if (attempt > 0) {
      progress.reopened = attempt;
    }
    try {
      const events = await fetch(`${origin}/v1/runs/${encodeURIComponent(runId)}/events`, {
        headers: lastEventId ? { ...auth, "last-event-id": lastEventId } : auth,
        signal: streamSignal,
      });
      if (!events.ok) {
        throw new Error(`events: HTTP ${events.status}`);
      }
      await readSse(events, (e) => {
        lastEventId = e.id ?? lastEventId;
        if (e.event === "done" || e.event === "error") {
          ended = true;
        }
        return onEvent(e);
      });
    } catch (error) {
      throw decisionFailed.signal.aborted ? decisionFailed.signal.reason : error;
    }
  }

  function onEvent(e) {
    seen.push(e.event);
    if (e.event === "pending" && !decided) {
      t1 = performance.now();
      const request = JSON.parse(e.data).request;
      const body = JSON.stringify({ runId, requestId: request.id, decision: "approve" });
      t2 = performance.now();
      progress.decided = true;
      decided = fetch(`${origin}/v1/decisions`, {
        method: "POST",
        headers: signed(body),
        body,
        signal,
      }).then(async (r) => {
        if (r.status !== 202) {
          throw new Error(`decision: HTTP ${r.status} ${await r.text()}`);
        }
      });
      decided.catch((error) => decisionFailed.abort(error));
    }
    if (e.event === "resumed" && decided && resumedAt === undefined) {
      resumedAt = performance.now(); // the approved tool starts right after this event
    }
    if (e.event === "done" || e.event === "error") {
      t3 = performance.now();
      if (e.event === "error" || JSON.parse(e.data).status !== "done") {
        throw new Error(`run ${runId} ended with ${e.event} ${e.data}`);
      }
      return false;
    }
  }
  if (!decided || t3 === undefined) {
    throw new Error(`run ${runId}: stream ended early (${seen.join(",")})`);
  }
  await decided;
  return {
    runId,
    startToPending: t1 - t0,
    decisionToDone: t3 - t2,
    // The product only: its log says `resumed` as the approved call starts.
    decisionToResumed: resumedAt === undefined ? undefined : resumedAt - t2,
    total: t3 - t0,
    started: t0,
    finished: t3,
    seen,
  };
}

/** Polls a run whose client cycle failed: true if it reaches `done` within 30 s. */
async function finishedLater(origin, runId) {
  const auth = { authorization: `Bearer ${API_TOKEN}` };
  for (
    const deadline = Date.now() + 30_000;
    Date.now() < deadline;
    await new Promise((r) => setTimeout(r, 500))
  ) {
    try {
      const view = await (
        await fetch(`${origin}/v1/runs/${encodeURIComponent(runId)}`, { headers: auth })
      ).json();
      if (view.status === "done") {
        return true;
      }
      if (view.status === "pending") {
        // The client never got to decide: this run is waiting, not lost; it is not a finished cycle either.
        return true;
      }
    } catch {}
  }
  return false;
}

/** Checks every run afterwards: known, finished once, nothing lost or duplicated. */
async function verify(origin, results, product) {
  const auth = { authorization: `Bearer ${API_TOKEN}` };
  const problems = [];
  const ids = new Set(results.map((r) => r.runId));
  if (ids.size !== results.length) {
    problems.push(`${results.length - ids.size} duplicated run ids`);
  }
  await Promise.all(
    results.map(async (r) => {
      const view = await (
        await fetch(
          `${origin}/v1/runs/${encodeURIComponent(r.runId)}${product ? "?transcript=1" : ""}`,
          { headers: auth },
        )
      ).json();
      if (view.status !== "done") {
        problems.push(`${r.runId}: status ${view.status}`);
      }
      const count = (name) => r.seen.filter((e) => e === name).length;
      if (count("pending") !== 1 || count("done") !== 1) {
        problems.push(`${r.runId}: live events ${r.seen.join(",")}`);
      }
      if (product) {
        // The stored event log, replayed from the start: one pending, one resumed, one done.
        const replay = [];
        try {
          const log = await fetch(`${origin}/v1/runs/${encodeURIComponent(r.runId)}/events`, {
            headers: auth,
            // Bounded: a replay that never ends (a worker restarted under it) must not hang the run.
            signal: AbortSignal.timeout(60_000),
          });
          await readSse(log, (e) => void replay.push(e.event));
        } catch (error) {
          problems.push(`${r.runId}: log replay: ${error?.message ?? error}`);
        }
        for (const [name, want] of [
          ["pending", 1],
          ["resumed", 1],
          ["done", 1],
        ]) {
          const got = replay.filter((e) => e === name).length;
          if (got !== want) {
            problems.push(`${r.runId}: ${got} ${name} events in the log`);
          }
        }
        const ran = (view.toolCalls ?? []).filter(
          (c) => c.name === "refund_order" && !c.isError,
        ).length;
        if (ran !== 1) {
          problems.push(`${r.runId}: refund_order ran ${ran} times`);
        }
        const roles = (view.messages ?? view.transcript ?? [])
          .map((m) => m.role)
          .join(",")
          .replace(/^system,/, "");
        if (roles !== "user,assistant,tool,assistant") {
          problems.push(`${r.runId}: transcript ${roles || "(none)"}`);
        }
      }
    }),
  );
  return problems;
}

async function measure(label, server, runs, timeoutMs, product, profileFile) {
  const signal = AbortSignal.timeout(timeoutMs);
  // Warm-up: a few sequential cycles (first isolate start, first queue batch).
  for (let i = 0; i < 3; i += 1) {
    await cycle(server.origin, signal);
  }
  const profiler = profileFile ? await startProfile(server.inspectorPort) : undefined;
  const cpu0 = workerdCpuMs(server.pid);
  const t0 = performance.now();
  const settled = await Promise.allSettled(
    Array.from({ length: runs }, () => cycle(server.origin, signal)),
  );
  const wall = performance.now() - t0;
  // workerd's CPU over the batch (real CPU, not wall: robust to a shared machine's load).
  const cpu = workerdCpuMs(server.pid) - cpu0;
  if (profiler) {
    fs.writeFileSync(profileFile, JSON.stringify(await profiler.stop()));
    console.log(`CPU profile of ${label} (${profiler.target}) written to ${profileFile}`);
  }
  const results = settled.filter((s) => s.status === "fulfilled").map((s) => s.value);
  const rejected = settled.filter((s) => s.status === "rejected").map((s) => s.reason);
  const failures = rejected.map((e) => String(e?.message ?? e));
  const problems = await verify(server.origin, results, product);
  // A cycle that failed on the client side (socket reset, timeout) is not yet a lost run:
  // look its run up, and count it lost only if it never finishes.
  let lost = rejected.filter((e) => !e?.runId).length;
  const late = await Promise.all(
    rejected.filter((e) => e?.runId).map((e) => finishedLater(server.origin, e.runId)),
  );
  lost += late.filter((ok) => !ok).length;
  return {
    label,
    runs,
    wall,
    cpu,
    results,
    failures,
    problems,
    lost,
    clientErrors: rejected.length,
  };
}

export async function main() {
  const runs = Number(arg("runs", 200));
  const timeoutMs = Number(arg("timeout", 240)) * 1000;
  const systems = [
    {
      label: "bare pipeline worker (baseline)",
      cwd: path.join(BENCH, "pipeline-baseline"),
      ready: "/v1/runs/none",
      product: false,
    },
    ...(process.argv.includes("--floor")
      ? [
          {
            label: "the contract's floor (pipeline-floor/, by hand)",
            cwd: path.join(BENCH, "pipeline-floor"),
            ready: "/v1/runs/none",
            product: false,
            vars: { API_TOKEN, WEBHOOK_SECRET: SECRET, RECEIPT_KEY },
          },
        ]
      : []),
    ...(arg("ab")
      ? [
          {
            label: `toolnexus-edge worker at ${path.resolve(arg("ab"))}`,
            cwd: path.resolve(arg("ab")),
            ready: "/healthz",
            product: true,
          },
        ]
      : []),
    {
      label: "toolnexus-edge worker (support agent, demo model)",
      cwd: ROOT,
      ready: "/healthz",
      product: true,
    },
  ];
  const rounds = Number(arg("rounds", 2));
  const measured = systems.map((s) => ({
    label: s.label,
    runs: 0,
    wall: 0,
    cpu: 0,
    results: [],
    failures: [],
    problems: [],
    lost: 0,
    clientErrors: 0,
  }));
  const servers = [];
  const snapshots = [];
  try {
    // Both workers are up (idle) for the whole run; rounds alternate baseline, product, …
    // so a burst of load from elsewhere on the machine hits both alike.
    for (const s of systems) {
      const snapshot = await snapshotWorker(s.cwd, {
        minify: !process.argv.includes("--no-minify"),
      });
      snapshots.push(snapshot);
      servers.push(
        await startWranglerDev({
          cwd: snapshot.dir,
          ready: s.ready,
          vars:
            s.vars ??
            (s.product
              ? {
                  API_TOKEN,
                  WEBHOOK_SECRET: SECRET,
                  RECEIPT_KEY,
                  APPROVER_GROUPS,
                  LLM_BASE_URL: "",
                }
              : {}),
        }),
      );
    }
    for (let round = 0; round < rounds; round += 1) {
      // The baseline goes first; the others take turns at going next, since that place reads
      // lower (≈ 1 ms per cycle at 100 × 3 with the same code in both places).
      const order = [...systems.entries()];
      const rest = order.slice(1);
      for (const [i, s] of [order[0], ...(round % 2 ? rest.reverse() : rest)]) {
        const which = s.product ? "product" : "baseline";
        const profile =
          round === 0 && arg("profile") && arg("profile-only", which) === which
            ? `${arg("profile").replace(/\.cpuprofile$/, "")}.${which}.cpuprofile`
            : undefined;
        if (profile) {
          fs.mkdirSync(path.dirname(path.resolve(profile)), { recursive: true });
        }
        if (profile) {
          fs.copyFileSync(
            path.join(snapshots[i].dir, "worker.js"),
            profile.replace(/\.cpuprofile$/, ".worker.js"),
          );
        }
        const m = await measure(s.label, servers[i], runs, timeoutMs, s.product, profile);
        console.error(
          `  round ${round + 1}, ${which}: ${m.results.length}/${m.runs} done in ${(m.wall / 1000).toFixed(1)} s${m.failures.length ? `; first failure: ${m.failures[0]}` : ""}`,
        );
        const into = measured[i];
        into.runs += m.runs;
        into.wall += m.wall;
        into.cpu += m.cpu;
        into.results.push(...m.results);
        into.failures.push(...m.failures);
        into.problems.push(...m.problems);
        into.lost += m.lost;
        into.clientErrors += m.clientErrors;
      }
    }
  } finally {
    for (const server of servers) {
      await server.stop();
    }
    for (const snapshot of snapshots) {
      snapshot.remove();
    }
  }
  const [base] = measured;
  const stat = (m, key) => summarize(m.results.map((r) => r[key]).filter((v) => v !== undefined));
  const perSecond = (m) => (m.results.length / m.wall) * 1000;
  const cpuPerCycle = (m) => m.cpu / m.runs;
  const rows = measured.map((m) => {
    const sp = stat(m, "startToPending");
    const dd = stat(m, "decisionToDone");
    const total = stat(m, "total");
    const dr = stat(m, "decisionToResumed");
    const baseDone = stat(base, "decisionToDone").median;
    const basePending = stat(base, "startToPending").median;
    return [
      m.label,
      `${m.results.length}/${m.runs}`,
      perSecond(m).toFixed(1),
      ratio(perSecond(base), perSecond(m)),
      ms(cpuPerCycle(m)),
      ratio(cpuPerCycle(m), cpuPerCycle(base)),
      ms(sp.median),
      ms(sp.p95),
      ratio(sp.median, basePending),
      ms(dd.median),
      ms(dd.p95),
      m === base ? "–" : ms(dr.median),
      m === base ? "–" : ms(dr.p95),
      m === base ? "–" : ratio(dr.median, baseDone),
      ms(total.median),
      ms(total.p95),
      ratio(total.median, stat(base, "total").median),
      m.clientErrors,
      `${m.lost} / ${m.problems.length}`,
    ];
  });
  const out = table(
    `Pipeline — ${runs} runs in parallel under wrangler dev, ${rounds} alternating round(s) per worker: start → pending → signed decision → queue → resume → done`,
    [
      "worker",
      "done",
      "runs/s",
      "cycle cost ×baseline",
      "workerd CPU per cycle ms",
      "×baseline",
      "start→pending p50 ms",
      "p95 ms",
      "start→pending p50 × bare start→pending",
      "decision→done p50 ms",
      "p95 ms",
      "decision→resumed tool start p50 ms",
      "p95 ms",
      "decision→resumed p50 × bare decision→done",
      "cycle p50 ms",
      "cycle p95 ms",
      "cycle p50 ×baseline",
      "client errors",
      "lost / duplicated or inconsistent",
    ],
    rows,
  );
  console.log(out);
  for (const m of measured) {
    for (const line of [...m.failures.slice(0, 5), ...m.problems.slice(0, 10)]) {
      console.log(`  ${m.label}: ${line}`);
    }
  }
  console.log(`machine: ${machine()}\n`);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
