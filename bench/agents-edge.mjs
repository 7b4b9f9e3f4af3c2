/**
 * Scenario — agents that delegate at the edge (issue 24): bench/agents-tree.mjs's work in the
 * thread's Durable Object. The object's own storage code (the driver, the sub-agent tree of
 * durable/agents/, the ledger; bundled from source by esbuild) runs against better-sqlite3
 * through lib/sqlite-storage.mjs, as bench/durable-writes.mjs does, with scripted in-process
 * models (lib/tree-harness.ts):
 * - flat (baseline): one agent calls lookup_a, lookup_b and refund in one turn, halts on the
 *   refund's approval, answers after the decision;
 * - tree: a coordinator hands the three jobs to three children in one turn (each child two
 *   model turns), `refunds` suspends, the decision goes to it, the coordinator answers.
 * Phases (one commit each, as the object coalesces writes between I/O awaits): start,
 * start → pending, the decision recorded, resume → done. The tree's extra writes per child
 * handle are (tree − flat) / 3. Runs alternate flat/tree after a warm-up, in one process.
 *
 * Peers in the same run (lib/agents-peers.mjs: OpenAI Agents SDK agents-as-tools, LangGraph
 * sub-graphs, in-memory with scripted models): start → interrupted, the state serialized,
 * resume → done, the finished siblings' tools counted (each must run once). The second table
 * sets the edge (its storage included) beside them, every system interleaved per iteration.
 *
 *   node agents-edge.mjs [--runs 200] [--warmup 30]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { importTs } from "./lib/build.mjs";
import { measurePhase, openStorage } from "./lib/sqlite-storage.mjs";
import { summarize, table, ms, ratio, arg, machine, shuffled } from "./lib/stats.mjs";
import { peers } from "./lib/agents-peers.mjs";

const PHASES = [
  ["start", "start"],
  ["suspend", "start → pending"],
  ["decide", "decision recorded"],
  ["resume", "resume → done"],
];
const FINAL = "done: lookup_a: ok, lookup_b: ok, refunded";

const hex = (n) =>
  [...crypto.getRandomValues(new Uint8Array(n))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");

async function oneRun(harness, agents, dir) {
  const file = path.join(dir, `thread-${hex(6)}.sqlite`);
  const { db, storage, transaction, counters } = openStorage(file);
  try {
    const thread = harness.createThread(storage, transaction, { agents });
    const threadId = `th_${hex(16)}`;
    const runId = `${threadId}.run_${hex(10)}`;
    const out = {};
    const phase = async (name, body) => {
      out[name] = await measurePhase({ db, file, counters }, body);
    };
    await phase("start", () => thread.start(runId, threadId, "refund order 42"));
    await phase("suspend", () => thread.drive(runId));
    const halted = thread.store.run(runId);
    if (halted.status !== "pending") {
      throw new Error(`run did not suspend: ${halted.status} ${halted.error ?? ""}`);
    }
    const request = halted.pending;
    await phase("decide", () => {
      const outcome = thread.decide(runId, request.id, "approve", "ann@example.com");
      if (outcome.status !== 202) {
        throw new Error(`decision not accepted: ${JSON.stringify(outcome)}`);
      }
    });
    await phase("resume", () => thread.drive(runId));
    const done = thread.store.run(runId);
    if (done.status !== "done" || done.text !== FINAL) {
      throw new Error(`run did not finish: ${done.status} ${done.text ?? done.error ?? ""}`);
    }
    out.path = request.data?.path ?? "";
    return out;
  } finally {
    db.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      fs.rmSync(f, { force: true });
    }
  }
}

/** A peer's suspend → resume, timed; each tool must have run exactly once. */
async function peerRun(name, peer) {
  const before = { ...peer.counts };
  const t0 = performance.now();
  const state = await peer.suspend();
  const t1 = performance.now();
  const text = await peer.resume(state);
  const t2 = performance.now();
  if (text !== FINAL) {
    throw new Error(`unexpected final text ${JSON.stringify(text)}`);
  }
  for (const [tool, n] of Object.entries(peer.counts)) {
    if (n !== before[tool] + 1) {
      throw new Error(`${name}: ${tool} ran ${n - before[tool]} times in one run`);
    }
  }
  return { phase1: t1 - t0, resume: t2 - t1, state: Buffer.byteLength(state) };
}

export async function main() {
  const runs = Number(arg("runs", 200));
  const warmup = Number(arg("warmup", 30));
  const harness = await importTs("bench/lib/tree-harness.ts", "tree-harness");
  const systems = { flat: harness.flatAgents, tree: harness.treeAgents };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolnexus-agents-edge-"));
  try {
    const peerRuns = {};
    for (const name of Object.keys(peers)) {
      for (const kind of ["flat", "tree"]) {
        peerRuns[`${name} ${kind}`] = await peers[name](kind);
      }
    }
    const one = async (name) =>
      systems[name] ? oneRun(harness, systems[name], dir) : peerRun(name, peerRuns[name]);
    const names = [...Object.keys(systems), ...Object.keys(peerRuns)];
    for (let i = 0; i < warmup; i += 1) {
      for (const name of names) {
        await one(name);
      }
    }
    const samples = Object.fromEntries(names.map((name) => [name, []]));
    for (let i = 0; i < runs; i += 1) {
      for (const name of shuffled(names)) {
        samples[name].push(await one(name));
      }
    }
    if (samples.tree[0].path !== "root/coordinator.1/refunds.1") {
      throw new Error(`the tree's request was not the child's: ${samples.tree[0].path}`);
    }
    const med = (name, pick) => summarize(samples[name].map(pick)).median;
    const whole = (r, key) => PHASES.reduce((sum, [p]) => sum + r[p][key], 0);
    const rows = [...PHASES, [undefined, "whole run"]].map(([p, label]) => {
      const pick = (key) => (r) => (p ? r[p][key] : whole(r, key));
      const v = (name, key) => med(name, pick(key));
      const perChild = (key) => ((v("tree", key) - v("flat", key)) / 3).toFixed(1);
      return [
        label,
        v("flat", "rows"),
        v("tree", "rows"),
        perChild("rows"),
        v("flat", "bytes"),
        v("tree", "bytes"),
        perChild("bytes"),
        v("flat", "wal"),
        v("tree", "wal"),
        ms(v("flat", "ms")),
        ms(v("tree", "ms")),
        ratio(v("tree", "ms"), v("flat", "ms")),
      ];
    });
    const out = table(
      `Agents that delegate in the Durable Object: coordinator + 3 children (one suspending) vs the flat run — storage replayed on better-sqlite3 (medians of ${runs} runs each, alternating)`,
      [
        "phase",
        "rows flat",
        "rows tree",
        "rows per child",
        "bytes flat",
        "bytes tree",
        "bytes per child",
        "WAL flat",
        "WAL tree",
        "ms flat",
        "ms tree",
        "tree / flat",
      ],
      rows,
    );
    const edgeOf = (r) => ({
      phase1: r.start.ms + r.suspend.ms,
      resume: r.resume.ms,
      state: r.start.bytes + r.suspend.bytes,
    });
    const peerRows = [
      ["toolnexus-edge (Durable Object storage on SQLite)", "flat", "tree", edgeOf],
      ...Object.keys(peers).map((name) => [name, `${name} flat`, `${name} tree`, (r) => r]),
    ].map(([label, flat, tree, view]) => {
      const m = (name, key) => summarize(samples[name].map((r) => view(r)[key])).median;
      return [
        label,
        ms(m(flat, "phase1")),
        ms(m(tree, "phase1")),
        ratio(m(tree, "phase1"), m(flat, "phase1")),
        ms(m(flat, "resume")),
        ms(m(tree, "resume")),
        ratio(m(tree, "resume"), m(flat, "resume")),
        m(flat, "state"),
        m(tree, "state"),
      ];
    });
    const peerTable = table(
      `The same tree and flat run, every system interleaved (medians of ${runs}, ms; state = bytes persisted at the halt: the edge's payload written through start → pending, a peer's serialized state)`,
      [
        "system",
        "start → pending flat",
        "tree",
        "tree / flat",
        "resume → done flat",
        "tree",
        "tree / flat",
        "state bytes flat",
        "state bytes tree",
      ],
      peerRows,
    );
    console.log(out);
    console.log(peerTable);
    console.log(
      "Finished siblings re-executed on resume: none in any system (each lookup ran once per run, checked).",
    );
    console.log(`machine: ${machine()}\n`);
    return `${out}\n${peerTable}`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
