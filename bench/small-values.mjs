/**
 * What storing values in parts (durable/storage/large/values.ts, issue 38) costs a value of
 * ordinary size: the tagged `Sql` of `durable/storage/sql.ts` at a git revision before large
 * values (`--rev`) and in the working tree, in one Durable Object (Miniflare, the workerd
 * `wrangler dev` runs), interleaved. Per statement: an INSERT of a 400-byte message body, and
 * a SELECT of a run's 20 message bodies. Only the new `Sql` can store a 3 MB value; its cost
 * is shown beside.
 *
 *   node small-values.mjs [--rev 6c0c5ab] [--statements 5000] [--rounds 5]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { arg, machine, table } from "./lib/stats.mjs";

const REV = arg("rev", "6c0c5ab"); // the commit before large values
const STATEMENTS = Number(arg("statements", "5000"));
const ROUNDS = Number(arg("rounds", "5"));

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const out = join(here, ".build", "small-values");
mkdirSync(join(out, "before"), { recursive: true });
writeFileSync(
  join(out, "before", "sql.ts"),
  execFileSync("git", ["show", `${REV}:durable/storage/sql.ts`], { cwd: root }),
);
writeFileSync(
  join(out, "entry.ts"),
  `
import { DurableObject } from "cloudflare:workers";
import { createSql as before } from "./before/sql";
import { createSql as now } from ${JSON.stringify(join(root, "durable/storage/sql.ts"))};
const body = JSON.stringify({ role: "assistant", content: "x".repeat(360) });
const big = "y".repeat(3_000_000);
export class Bench extends DurableObject {
  fetch(request) {
    const url = new URL(request.url);
    const statements = Number(url.searchParams.get("statements"));
    const rounds = Number(url.searchParams.get("rounds"));
    const raw = this.ctx.storage.sql;
    raw.exec("CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, body TEXT NOT NULL)");
    const sqls = { before: before(raw), now: now(raw) };
    for (const sql of Object.values(sqls)) {
      for (let i = 0; i < 20; i += 1) sql\`INSERT INTO messages (run_id, body) VALUES ('read', \${body})\`;
    }
    const work = {
      insert: (sql) => sql\`INSERT INTO messages (run_id, body) VALUES ('w', \${body})\`,
      select: (sql) => sql\`SELECT body FROM messages WHERE run_id = 'read' ORDER BY seq\`,
    };
    const us = {};
    for (let round = 0; round < rounds; round += 1) {
      for (const name of round % 2 ? ["now", "before"] : ["before", "now"]) {
        for (const [what, run] of Object.entries(work)) {
          const key = what + " " + name;
          const t0 = performance.now();
          for (let i = 0; i < statements; i += 1) run(sqls[name]);
          (us[key] ??= []).push(((performance.now() - t0) * 1000) / statements);
          raw.exec("DELETE FROM messages WHERE run_id = 'w'");
        }
      }
    }
    const t0 = performance.now();
    this.ctx.storage.transactionSync(() => sqls.now\`INSERT INTO messages (run_id, body) VALUES ('big', \${big})\`);
    const write = performance.now() - t0;
    const t1 = performance.now();
    const read = sqls.now\`SELECT body FROM messages WHERE run_id = 'big'\`[0].body;
    if (read !== big) return new Response("the 3 MB value came back different", { status: 500 });
    return Response.json({ us, big: { write, read: performance.now() - t1 } });
  }
}
export default { fetch: (request, env) => env.BENCH.get(env.BENCH.idFromName("bench")).fetch(request) };
`,
);
const bundled = await build({
  entryPoints: [join(out, "entry.ts")],
  bundle: true,
  format: "esm",
  write: false,
  external: ["cloudflare:*"],
  target: "es2022",
});

const mf = new Miniflare({
  modules: true,
  script: bundled.outputFiles[0].text,
  compatibilityDate: "2025-04-01",
  durableObjects: { BENCH: { className: "Bench", useSQLite: true } },
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const response = await mf.dispatchFetch(
    `http://bench/?statements=${STATEMENTS}&rounds=${ROUNDS}`,
  );
  if (!response.ok) {
    throw new Error(await response.text());
  }
  const { us, big } = await response.json();
  const rows = ["insert", "select"].map((what) => {
    const before = median(us[`${what} before`]);
    const now = median(us[`${what} now`]);
    return [what, before.toFixed(2), now.toFixed(2), `${(now / before).toFixed(2)}×`];
  });
  console.log(machine());
  console.log(
    table(
      `A value of ordinary size through the tagged Sql, µs per statement (median of ${ROUNDS} rounds of ${STATEMENTS}; before: ${REV})`,
      ["statement", "before", "now", "now ÷ before"],
      rows,
    ),
  );
  console.log(
    `A 3 MB value (now only; before: SQLITE_TOOBIG): written in ${big.write.toFixed(1)} ms, read in ${big.read.toFixed(1)} ms`,
  );
} finally {
  await mf.dispose();
}
