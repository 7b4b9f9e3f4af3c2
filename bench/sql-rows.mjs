/**
 * What turning SQLite rows into camelCase objects costs inside workerd (issue 26: a CPU
 * profile of 100 concurrent cycles had ≈ 10 % of the isolate's time in the old re-keying).
 * One Durable Object with SQLite storage (Miniflare, the workerd that `wrangler dev` runs)
 * reads a `runs`-shaped table of 1, 3 and 20 rows, two ways, interleaved:
 * - before: `toArray()`, then each row object re-keyed when a column name has `_`;
 * - now (`durable/storage/sql.ts`): `columnNames` once, the rows from `raw()` value arrays.
 * Both must give the same rows (checked first). Times are per statement, in the object.
 *
 *   node sql-rows.mjs [--statements 20000] [--rounds 3]
 */
import { Miniflare } from "miniflare";
import { arg, machine, table } from "./lib/stats.mjs";

const STATEMENTS = Number(arg("statements", "20000"));
const ROUNDS = Number(arg("rounds", "3"));

const script = `
import { DurableObject } from "cloudflare:workers";
const names = new Map();
const keyOf = (c) => {
  let k = names.get(c);
  if (k === undefined) {
    k = c.replace(/_([a-z0-9])/g, (_, x) => x.toUpperCase());
    names.set(c, k);
  }
  return k;
};
function camelRow(row) {
  let snake = false;
  for (const c in row) if (c.includes("_")) { snake = true; break; }
  if (!snake) return row;
  const out = {};
  for (const c in row) out[keyOf(c)] = row[c];
  return out;
}
const methods = {
  before: (sql, q) => sql.exec(q).toArray().map(camelRow),
  now: (sql, q) => {
    const cursor = sql.exec(q);
    const keys = cursor.columnNames.map(keyOf);
    const rows = [];
    for (const values of cursor.raw()) {
      const row = {};
      for (let i = 0; i < keys.length; i += 1) row[keys[i]] = values[i];
      rows.push(row);
    }
    return rows;
  },
};
export class Rows extends DurableObject {
  fetch(request) {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get("rows"));
    const statements = Number(url.searchParams.get("statements"));
    const rounds = Number(url.searchParams.get("rounds"));
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, thread_id TEXT, agent_name TEXT, status TEXT, created_at INTEGER, updated_at INTEGER, next_remind_at INTEGER, pending_json TEXT, usage_prompt INTEGER, usage_completion INTEGER)");
    sql.exec("DELETE FROM runs");
    for (let i = 0; i < n; i += 1) {
      sql.exec("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?)", "r" + i, "t", "support", "pending", i, i, null, '{"a":1}', 1, 2);
    }
    const q = "SELECT * FROM runs";
    if (JSON.stringify(methods.before(sql, q)) !== JSON.stringify(methods.now(sql, q))) {
      return new Response("the two methods disagree", { status: 500 });
    }
    const us = { before: [], now: [] };
    for (let round = 0; round < rounds; round += 1) {
      for (const name of round % 2 ? ["now", "before"] : ["before", "now"]) {
        for (let i = 0; i < statements / 10; i += 1) methods[name](sql, q); // warm-up
        const t0 = performance.now();
        for (let i = 0; i < statements; i += 1) methods[name](sql, q);
        us[name].push(((performance.now() - t0) * 1000) / statements);
      }
    }
    return Response.json(us);
  }
}
export default { fetch: (request, env) => env.ROWS.get(env.ROWS.idFromName("rows")).fetch(request) };
`;

const mf = new Miniflare({
  modules: true,
  script,
  compatibilityDate: "2025-04-01",
  durableObjects: { ROWS: { className: "Rows", useSQLite: true } },
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const rows = [];
  for (const n of [1, 3, 20]) {
    const response = await mf.dispatchFetch(
      `http://bench/?rows=${n}&statements=${STATEMENTS}&rounds=${ROUNDS}`,
    );
    if (!response.ok) {
      throw new Error(await response.text());
    }
    const us = await response.json();
    const before = median(us.before);
    const now = median(us.now);
    rows.push([n, before.toFixed(2), now.toFixed(2), `${(now / before).toFixed(2)}×`]);
  }
  console.log(machine());
  console.log(
    table(
      `SQLite rows → camelCase objects in workerd, µs per statement (median of ${ROUNDS} rounds of ${STATEMENTS})`,
      ["rows", "before: toArray + re-key", "now: raw + columnNames", "now ÷ before"],
      rows,
    ),
  );
} finally {
  await mf.dispose();
}
