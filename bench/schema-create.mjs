/**
 * Issue 26, the start leg: what a new thread's first write pays to create the object's
 * schema (every run of a new conversation is a new Durable Object). The schema code at a
 * git revision (A, default HEAD) against the working tree (B), each run against a fresh
 * better-sqlite3 database through the same `SqlStorage` adapter as durable-writes.mjs,
 * inside one transaction as the object's first write is, interleaved and shuffled round by
 * round. Reported: `exec` calls per creation (deterministic) and time per creation, B/A.
 * The adapter's JS↔SQLite boundary is better-sqlite3's, not workerd's, so the ratio is a
 * proxy for the object's; the statement counts are exact.
 *
 *   node schema-create.mjs [--rev HEAD] [--runs 2000]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ROOT, importTs } from "./lib/build.mjs";
import { openStorage } from "./lib/sqlite-storage.mjs";
import { arg, machine, ms, ratio, summarize, table } from "./lib/stats.mjs";

const REV = arg("rev", "HEAD");
const RUNS = Number(arg("runs", "2000"));
const WARMUP = Math.min(200, RUNS);

const ENTRY = `export { migrate, SCHEMA_VERSION } from "./durable/storage/schema";
export { createSql } from "./durable/storage/sql";
`;

/** The schema code of a tree (a folder holding durable/ and src/), bundled. */
async function schemaOf(dir, name) {
  const entry = path.join(dir, `schema-entry-${name}.ts`);
  writeFileSync(entry, ENTRY);
  try {
    return await importTs(path.relative(ROOT, entry), `schema-${name}`);
  } finally {
    rmSync(entry, { force: true });
  }
}

async function schemaAt(rev) {
  const dir = mkdtempSync(path.join(tmpdir(), "tn-schema-"));
  try {
    const tar = execFileSync("git", ["-C", ROOT, "archive", rev, "durable", "src"], {
      maxBuffer: 1 << 28,
    });
    execFileSync("tar", ["-x", "-C", dir], { input: tar });
    return await schemaOf(dir, "a");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const systems = { A: await schemaAt(REV), B: await schemaOf(ROOT, "b") };
if (systems.A.SCHEMA_VERSION !== systems.B.SCHEMA_VERSION) {
  console.log(
    `note: schema versions differ (A ${systems.A.SCHEMA_VERSION}, B ${systems.B.SCHEMA_VERSION})`,
  );
}

/** One creation on a fresh in-memory database: its time and its exec calls. */
function createOnce(system) {
  const { storage, transaction, counters, db } = openStorage(":memory:");
  const sql = system.createSql(storage);
  const t0 = performance.now();
  transaction(() => system.migrate(sql));
  const t = performance.now() - t0;
  const tables = db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get().n;
  db.close();
  return { t, statements: counters.statements, tables };
}

const times = { A: [], B: [] };
const shape = {};
for (let i = 0; i < WARMUP + RUNS; i += 1) {
  for (const name of Math.random() < 0.5 ? ["A", "B"] : ["B", "A"]) {
    const { t, statements, tables } = createOnce(systems[name]);
    shape[name] = { statements, tables };
    if (i >= WARMUP) {
      times[name].push(t);
    }
  }
}

const a = summarize(times.A);
const b = summarize(times.B);
console.log(machine());
console.log(
  `A = ${REV}, B = working tree; ${RUNS} creations each after ${WARMUP} warm-up, interleaved\n`,
);
console.log(
  table(
    `Schema creation of a fresh thread object (${new Date().toISOString()}, load ${os.loadavg()[0].toFixed(1)})`,
    ["schema code", "exec calls", "tables", "median ms", "p95 ms", "× A (median)"],
    [
      ["A", shape.A.statements, shape.A.tables, ms(a.median), ms(a.p95), "1.00×"],
      ["B", shape.B.statements, shape.B.tables, ms(b.median), ms(b.p95), ratio(b.median, a.median)],
    ],
  ),
);
