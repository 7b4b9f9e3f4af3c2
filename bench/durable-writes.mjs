/**
 * Scenario 3 — durable write cost, replayed in Node. The thread object's own storage
 * code (durable/storage/schema.ts, run-store.ts, thread/driver.ts checkpoints, ledger/decisions.ts,
 * event-hub.ts; bundled from source by esbuild) runs against better-sqlite3 through a
 * tiny SqlStorage adapter, with the demo `support` agent. Each measured run is
 * "Please delete my account" in a thread that already holds 10, 100 or 1,000 messages:
 * start → turn 1 suspends on the approval → signed decision (decline) recorded →
 * resume → turn 2 → done, with the object's delivery round (receipt signing and
 * acknowledgement, the pending version) after each commit. Interleaved run by run with the
 * same object without receipts, whose difference is what receipts add. Each phase commits once (a Durable Object coalesces the
 * writes made between I/O awaits; the demo model does no I/O), and the WAL is
 * truncated before each phase, so its size after the commit is the pages written.
 *
 *   node durable-writes.mjs [--runs 20] [--lengths 10,100,1000]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { importTs } from "./lib/build.mjs";
import { measurePhase, openStorage } from "./lib/sqlite-storage.mjs";
import { summarize, table, ms, ratio, arg, machine } from "./lib/stats.mjs";

const PHASES = [
  ["start", "start (run row + input message)"],
  ["suspend", "turn 1 → suspension"],
  ["suspendDelivery", "delivery round after it (pending version)"],
  ["decide", "decision recorded (+ its receipt row)"],
  ["decideDelivery", "delivery round after it (receipt signed, acked)"],
  ["resume", "resume → turn 2 → done"],
  ["endDelivery", "delivery round after it (pending version cleared)"],
];

/** The systems interleaved run by run: the object without receipts (baseline), and as deployed. */
const SYSTEMS = [
  ["without", { receipts: false }],
  ["receipts", { receipts: true }],
];

const hex = (n) =>
  [...crypto.getRandomValues(new Uint8Array(n))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");

function history(length) {
  return Array.from({ length }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content:
      `${i % 2 === 0 ? "Question" : "Answer"} ${i}: about order ${1000 + i}, its items, delivery and the invoice address. `.padEnd(
        120,
        ".",
      ),
  }));
}

async function oneRun(harness, length, dir, options) {
  const file = path.join(dir, `thread-${hex(6)}.sqlite`);
  const { db, storage, transaction, counters } = openStorage(file);
  try {
    const thread = harness.createThread(storage, transaction, options);
    const threadId = `th_${hex(16)}`;
    const runId = `${threadId}.run_${hex(10)}`;
    thread.seed(threadId, history(length));
    const out = {};
    const phase = async (name, body) => {
      out[name] = await measurePhase({ db, file, counters }, body);
    };
    await phase("start", () => thread.start(runId, threadId, "Please delete my account"));
    await phase("suspend", () => thread.drive(runId));
    await phase("suspendDelivery", () => thread.deliver());
    const halted = thread.store.run(runId);
    if (halted.status !== "pending") {
      throw new Error(`run did not suspend: ${halted.status} ${halted.error ?? ""}`);
    }
    const request = halted.pending;
    await phase("decide", () => {
      const outcome = thread.decide(runId, request.id, "decline", "lead@example.com");
      if (!outcome.ok) {
        throw new Error(`decision not accepted: ${JSON.stringify(outcome)}`);
      }
    });
    // The object's delivery round after each commit (outbox/delivery.ts), each its own commit.
    await phase("decideDelivery", () => thread.deliver());
    await phase("resume", () => thread.drive(runId));
    await phase("endDelivery", () => thread.deliver());
    const done = thread.store.run(runId);
    if (done.status !== "done") {
      throw new Error(`run did not finish: ${done.status} ${done.error ?? ""}`);
    }
    out.turns = done.turns;
    return out;
  } finally {
    db.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      fs.rmSync(f, { force: true });
    }
  }
}

export async function main() {
  const runs = Number(arg("runs", 20));
  const lengths = arg("lengths", "10,100,1000").split(",").map(Number);
  const harness = await importTs("bench/lib/durable-harness.ts", "durable-harness");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolnexus-durable-"));
  try {
    // results[system][length]: the systems interleaved run by run, so a busy moment hits both.
    const results = Object.fromEntries(SYSTEMS.map(([name]) => [name, {}]));
    for (const length of lengths) {
      for (const [name, options] of SYSTEMS) {
        await oneRun(harness, length, dir, options); // warm-up
        results[name][length] = [];
      }
      for (let i = 0; i < runs; i += 1) {
        for (const [name, options] of SYSTEMS) {
          results[name][length].push(await oneRun(harness, length, dir, options));
        }
      }
    }
    const total = (r, key) => PHASES.reduce((sum, [p]) => sum + r[p][key], 0);
    const med = (system, length, pick) => summarize(results[system][length].map(pick)).median;
    const base = lengths[0];
    const rows = [];
    const add = (length, label, pick, timePick) => {
      const t = summarize(results.receipts[length].map(timePick));
      const v = (key) => med("receipts", length, (r) => pick(r, key));
      const b = (key) => med("receipts", base, (r) => pick(r, key));
      rows.push([
        length,
        label,
        v("all"),
        v("statements"),
        v("rows"),
        ratio(v("rows"), b("rows")),
        v("bytes"),
        ratio(v("bytes"), b("bytes")),
        v("wal"),
        ratio(v("wal"), b("wal")),
        v("read"),
        ms(t.median),
        ms(t.p95),
      ]);
    };
    const added = [];
    const addDiff = (length, label, pick) => {
      const d = (key) =>
        med("receipts", length, (r) => pick(r, key)) - med("without", length, (r) => pick(r, key));
      const w = (key) => med("without", length, (r) => pick(r, key));
      added.push([
        length,
        label,
        d("statements"),
        d("rows"),
        ratio(w("rows") + d("rows"), w("rows")),
        d("bytes"),
        ratio(w("bytes") + d("bytes"), w("bytes")),
        d("wal"),
      ]);
    };
    for (const length of lengths) {
      for (const [p, label] of PHASES) {
        add(
          length,
          label,
          (r, key) => r[p][key],
          (r) => r[p].ms,
        );
        addDiff(length, label, (r, key) => r[p][key]);
      }
      add(
        length,
        "whole run (per suspension cycle)",
        (r, key) => total(r, key),
        (r) => total(r, "ms"),
      );
      addDiff(length, "whole run (per suspension cycle)", (r, key) => total(r, key));
      add(
        length,
        "per turn (whole run ÷ turns)",
        (r, key) => total(r, key) / r.turns,
        (r) => total(r, "ms") / r.turns,
      );
    }
    const out = table(
      `Durable write cost, with receipts — thread object storage replayed on better-sqlite3 ${harness.sqliteVersion ?? ""}(medians of ${runs} runs per length; ×${base} = ratio to the same phase at ${base} prior messages)`,
      [
        "prior msgs",
        "phase",
        "SQL stmts (all)",
        "write stmts",
        "rows written",
        `rows ×${base}`,
        "payload bytes",
        `bytes ×${base}`,
        "WAL bytes",
        `WAL ×${base}`,
        "rows read",
        "median ms",
        "p95 ms",
      ],
      rows,
    );
    const diff = table(
      `What receipts add — the same runs with receipts minus without (interleaved run by run; ratio = with ÷ without)`,
      [
        "prior msgs",
        "phase",
        "+ write stmts",
        "+ rows written",
        "rows with ÷ without",
        "+ payload bytes",
        "bytes with ÷ without",
        "+ WAL bytes",
      ],
      added,
    );
    console.log(out);
    console.log(diff);
    console.log(`machine: ${machine()}\n`);
    return `${out}\n${diff}`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
