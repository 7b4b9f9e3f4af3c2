/**
 * Long threads (issue 38 §4): what a resume reads and holds when the thread has 10, 100 and
 * 1,000 turns of 20 KB each (1,000 turns ≈ 20 MB of transcript, no compaction). One Durable
 * Object (Miniflare, the workerd `wrangler dev` runs) with the thread's own storage code
 * (`durable/storage/schema.ts`, `sql.ts`, `run-store.ts`, bundled from source) is seeded turn
 * by turn, as runs would have written it. Then, per length, what a resume does before it calls
 * the model, timed: the run, its tool calls and the whole transcript read and parsed, and the
 * model request's JSON built from it. The isolate's heap comes from its inspector (Chrome
 * DevTools Protocol: `Runtime.getHeapUsage`; see `heapUsage` for why not after a GC), once before
 * and after one resume while its transcript and request are still held, as during a model call.
 *
 *   node long-threads.mjs [--lengths 10,100,1000] [--resumes 5] [--turn-bytes 20000]
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import WebSocket from "ws";
import { freePort } from "./lib/wrangler-dev.mjs";
import { arg, machine, mib, table } from "./lib/stats.mjs";

const LENGTHS = arg("lengths", "10,100,1000").split(",").map(Number);
const RESUMES = Number(arg("resumes", "5"));
const TURN_BYTES = Number(arg("turn-bytes", "20000"));

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const entry = `
import { DurableObject } from "cloudflare:workers";
import { createLazySql } from ${JSON.stringify(join(root, "durable/storage/sql.ts"))};
import { hasSchema, migrate } from ${JSON.stringify(join(root, "durable/storage/schema.ts"))};
import { RunStore } from ${JSON.stringify(join(root, "durable/storage/run-store.ts"))};
let held;
export class Thread extends DurableObject {
  store = new RunStore(createLazySql(this.ctx.storage.sql, { migrate, hasSchema }));
  fetch(request) {
    const url = new URL(request.url);
    const half = Number(url.searchParams.get("half"));
    if (url.pathname === "/seed") {
      const turns = Number(url.searchParams.get("turns"));
      let last;
      for (let turn = 0; turn < turns; turn += 1) {
        this.ctx.storage.transactionSync(() => {
          last = "th_bench.run_" + turn;
          const now = Date.now();
          this.store.insertRun({ runId: last, threadId: "th_bench", agent: "support", input: turn + " " + "u".repeat(half), publicUrl: "https://edge.test", now });
          this.store.appendMessages(last, [{ role: "assistant", content: "a".repeat(half) }]);
          this.store.update(last, { status: "done", text: "done", turns: 1 }, now);
        });
      }
      const transcriptBytes = this.ctx.storage.sql.exec("SELECT SUM(length(body)) AS n FROM messages").one().n;
      return Response.json({ runId: last, bytes: this.ctx.storage.sql.databaseSize, transcriptBytes });
    }
    if (url.pathname === "/stage") {
      // One stage of a resume, held (the heap breakdown): the rows as SQLite hands them over,
      // the messages parsed from them, or the messages and the request's JSON built from them.
      held = undefined;
      const stage = url.searchParams.get("stage");
      const rows = this.store.sql\`SELECT body FROM messages ORDER BY seq\`;
      if (stage === "rows") {
        held = rows;
      } else {
        const messages = rows.map((r) => JSON.parse(r.body));
        held = stage === "parsed" ? messages : { messages, body: JSON.stringify({ model: null, messages, tools: [] }) };
      }
      return new Response(stage);
    }
    if (url.pathname === "/resume") {
      const runId = url.searchParams.get("runId");
      held = undefined;
      const t0 = performance.now();
      const run = this.store.run(runId);
      const toolCalls = this.store.toolCalls(runId);
      const { messages } = this.store.transcript(runId);
      const body = JSON.stringify({ model: run.model, messages, tools: toolCalls });
      held = { messages, body };
      return Response.json({ ms: performance.now() - t0, messages: messages.length, requestBytes: body.length });
    }
    held = undefined;
    return new Response("released");
  }
}
export default { fetch: (request, env) => env.THREAD.get(env.THREAD.idFromName(new URL(request.url).searchParams.get("thread"))).fetch(request) };
`;
const bundled = await build({
  stdin: { contents: entry, resolveDir: root, loader: "ts" },
  bundle: true,
  format: "esm",
  write: false,
  external: ["cloudflare:*"],
  target: "es2022",
});

/**
 * The isolate's heap through its inspector. Not after a forced GC: workerd's inspector takes
 * `HeapProfiler.collectGarbage` and never answers it (nor, measured, collects), so this is
 * what is live plus what no collection has taken yet: an upper bound.
 */
async function heapUsage(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl && /core:user/.test(t.title ?? ""));
  const socket = new WebSocket((target ?? targets[0]).webSocketDebuggerUrl);
  await new Promise((ok, fail) => {
    socket.once("open", ok);
    socket.once("error", fail);
  });
  let next = 0;
  const send = (method) =>
    new Promise((ok, fail) => {
      const id = ++next;
      const onMessage = (data) => {
        const message = JSON.parse(String(data));
        if (message.id === id) {
          socket.off("message", onMessage);
          message.error ? fail(new Error(message.error.message)) : ok(message.result);
        }
      };
      socket.on("message", onMessage);
      socket.send(JSON.stringify({ id, method }));
    });
  const { usedSize } = await send("Runtime.getHeapUsage");
  socket.close();
  return usedSize;
}

/**
 * The live heap: a heap snapshot makes V8 collect everything unreachable first (the one way to
 * a full collection workerd's inspector answers), then the usage is read. Measured: 19.4 MiB
 * of fresh garbage strings read 0.26 MiB after it, 19.4 MiB of held ones 19.35.
 */
async function liveHeapUsage(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl && /core:user/.test(t.title ?? ""));
  const socket = new WebSocket((target ?? targets[0]).webSocketDebuggerUrl);
  await new Promise((ok, fail) => {
    socket.once("open", ok);
    socket.once("error", fail);
  });
  let next = 0;
  const send = (method, params) =>
    new Promise((ok, fail) => {
      const id = ++next;
      const onMessage = (data) => {
        const message = JSON.parse(String(data));
        if (message.id === id) {
          socket.off("message", onMessage);
          message.error ? fail(new Error(message.error.message)) : ok(message.result);
        }
      };
      socket.on("message", onMessage);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send("HeapProfiler.enable");
  await send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  const { usedSize } = await send("Runtime.getHeapUsage");
  socket.close();
  return usedSize;
}

const inspectorPort = await freePort();
const mf = new Miniflare({
  modules: true,
  script: bundled.outputFiles[0].text,
  compatibilityDate: "2025-04-01",
  durableObjects: { THREAD: { className: "Thread", useSQLite: true } },
  inspectorPort,
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const rows = [];
  const stages = [];
  let base;
  for (const turns of LENGTHS) {
    const thread = `t${turns}`;
    const call = async (path) => {
      const response = await mf.dispatchFetch(`http://bench${path}&thread=${thread}`);
      if (!response.ok) {
        throw new Error(await response.text());
      }
      return response;
    };
    const seeded = await (await call(`/seed?turns=${turns}&half=${TURN_BYTES / 2}`)).json();
    await call("/release?");
    const before = await heapUsage(inspectorPort);
    let resumed = await (await call(`/resume?runId=${seeded.runId}`)).json();
    const holding = await heapUsage(inspectorPort); // one resume: its garbage included
    const times = [];
    for (let i = 0; i < RESUMES; i += 1) {
      resumed = await (await call(`/resume?runId=${seeded.runId}`)).json();
      times.push(resumed.ms);
    }
    const resumeLive = await liveHeapUsage(inspectorPort); // the resume's result still held
    await call("/release?");
    const rest = await liveHeapUsage(inspectorPort);
    const held = {};
    for (const stage of ["rows", "parsed", "body"]) {
      await call(`/stage?stage=${stage}`);
      held[stage] = (await liveHeapUsage(inspectorPort)) - rest;
    }
    await call("/release?");
    stages.push([
      turns,
      mib(seeded.transcriptBytes),
      mib(rest),
      mib(held.rows),
      mib(held.parsed),
      mib(held.body),
      mib(resumeLive - rest),
    ]);
    const resume = median(times);
    base ??= resume;
    rows.push([
      turns,
      resumed.messages,
      mib(seeded.bytes),
      resume.toFixed(1),
      `${(resume / base).toFixed(1)}×`,
      mib(before),
      mib(holding),
    ]);
  }
  console.log(machine());
  console.log(
    table(
      `A resume's reads in a long thread (${TURN_BYTES / 1000} KB a turn; median of ${RESUMES} resumes; heap: before, and after one resume that still holds its transcript and request, garbage included)`,
      [
        "turns",
        "messages read",
        "database MiB",
        "resume ms",
        "× 10 turns",
        "heap before MiB",
        "heap after one resume MiB",
      ],
      rows,
    ),
  );
  console.log(
    table(
      "What a resume holds: live heap after a full collection (a heap snapshot), above the isolate at rest; the transcript's message JSON is ASCII (a non-ASCII one takes up to twice its length as V8 strings)",
      [
        "turns",
        "message JSON MiB",
        "at rest MiB",
        "rows held MiB",
        "parsed messages MiB",
        "messages + request JSON MiB",
        "after a resume (its messages and request) MiB",
      ],
      stages,
    ),
  );
} finally {
  await mf.dispose();
}
