/**
 * Scenario 3 — durable write cost, replayed in Node. The thread object's own storage
 * code (durable/storage/schema.ts, run-store.ts, thread/driver.ts checkpoints, ledger/decisions.ts,
 * event-hub.ts; bundled from source by esbuild) runs against better-sqlite3 through a
 * tiny SqlStorage adapter, with the demo `support` agent. Each measured run is
 * "Please delete my account" in a thread that already holds 10, 100 or 1,000 messages:
 * start → turn 1 suspends on the approval → signed decision (decline) recorded →
 * resume → turn 2 → done. Each phase commits once (a Durable Object coalesces the
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
  ["decide", "decision recorded"],
  ["resume", "resume → turn 2 → done"],
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

async function oneRun(harness, length, dir) {
  const file = path.join(dir, `thread-${hex(6)}.sqlite`);
  const { db, storage, transaction, counters } = openStorage(file);
  try {
    const thread = harness.createThread(storage, transaction);
    const threadId = `th_${hex(16)}`;
    const runId = `${threadId}.run_${hex(10)}`;
    thread.seed(threadId, history(length));
    const out = {};
    const phase = async (name, body) => {
      out[name] = await measurePhase({ db, file, counters }, body);
    };
    await phase("start", () => thread.start(runId, threadId, "Please delete my account"));
    await phase("suspend", () => thread.drive(runId));
    const halted = thread.store.run(runId);
    if (halted.status !== "pending") {
      throw new Error(`run did not suspend: ${halted.status} ${halted.error ?? ""}`);
    }
    const request = JSON.parse(halted.pending);
    await phase("decide", () => {
      const outcome = thread.decide(runId, request.id, "decline", "lead@example.com");
      if (outcome.status !== 202) {
        throw new Error(`decision not accepted: ${JSON.stringify(outcome)}`);
      }
    });
    await phase("resume", () => thread.drive(runId));
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
    const results = {};
    for (const length of lengths) {
      await oneRun(harness, length, dir); // warm-up
      results[length] = [];
      for (let i = 0; i < runs; i += 1) {
        results[length].push(await oneRun(harness, length, dir));
      }
    }
    const med = (length, pick) => summarize(results[length].map(pick)).median;
    const total = (r, key) => PHASES.reduce((sum, [p]) => sum + r[p][key], 0);
    const base = lengths[0];
    const rows = [];
    const add = (length, label, pick, timePick) => {
      const t = summarize(results[length].map(timePick));
      const v = (key) => med(length, (r) => pick(r, key));
      const b = (key) => med(base, (r) => pick(r, key));
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
    for (const length of lengths) {
      for (const [p, label] of PHASES) {
        add(
          length,
          label,
          (r, key) => r[p][key],
          (r) => r[p].ms,
        );
      }
      add(
        length,
        "whole run (per suspension cycle)",
        (r, key) => total(r, key),
        (r) => total(r, "ms"),
      );
      add(
        length,
        "per turn (whole run ÷ turns)",
        (r, key) => total(r, key) / r.turns,
        (r) => total(r, "ms") / r.turns,
      );
    }
    const out = table(
      `Durable write cost — thread object storage replayed on better-sqlite3 ${harness.sqliteVersion ?? ""}(medians of ${runs} runs per length; ×${base} = ratio to the same phase at ${base} prior messages)`,
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
    console.log(out);
    console.log(`machine: ${machine()}\n`);
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
