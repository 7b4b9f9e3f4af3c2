/**
 * Issue 29 under `wrangler dev` (workerd, real Durable Objects, queues and `waitUntil`): with
 * OTEL_EXPORTER_OTLP_ENDPOINT set to a local OTLP/HTTP receiver on 127.0.0.1, the demo's
 * four-eyes refund halts, its half of the trace is exported, wrangler is STOPPED and started
 * again on the same local state, two members of finance approve, and the resumed half
 * arrives at the receiver in the SAME trace: one trace for the run, across a restart.
 * The bodies are decoded by the OTLP JSON encoding's rules (test/helpers/otlp-json.mjs).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { createClient, isFinished, isPending } from "../../scripts/lib/api.mjs";
import { RUNTIME_ERROR, startDevServer, TEST_VARS } from "../../scripts/lib/dev-server.mjs";
import { decodeTraceRequest } from "../helpers/otlp-json.mjs";

const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`trace-export.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Epoch nanoseconds, the unit of OTLP's span times (workerd shares this machine's clock). */
const nanos = () => BigInt(Date.now()) * 1_000_000n;

/** What the receiver got: each request's path, headers and decoded spans. */
const received = [];
let receiver;
let receiverUrl;
let stateDir;
let server;

before(async () => {
  receiver = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      let spans;
      let error;
      try {
        spans = decodeTraceRequest(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (e) {
        error = e;
      }
      received.push({ path: req.url, headers: req.headers, spans, error });
      // What an OTLP/HTTP collector answers: an (empty) ExportTraceServiceResponse.
      res.writeHead(error ? 400 : 200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${receiver.address().port}`;
  stateDir = mkdtempSync(path.join(tmpdir(), "toolnexus-trace-"));
});

after(async () => {
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve) ?? resolve());
  rmSync(stateDir, { recursive: true, force: true });
});

const VARS = () => ({
  ...TEST_VARS,
  OTEL_EXPORTER_OTLP_ENDPOINT: `${receiverUrl}/otlp`,
  OTEL_EXPORTER_OTLP_HEADERS: "x-tenant=demo%20team",
});

const allSpans = () => received.flatMap((r) => r.spans ?? []);

/** Waits until the receiver holds a span `match` accepts (the export runs after the response). */
async function spanArrives(match, what, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const span = allSpans().find(match);
    if (span) {
      return span;
    }
    if (Date.now() > deadline) {
      const names = allSpans().map(
        (s) => `${s.name} ${s.attributes["toolnexus.run.status"] ?? ""}`,
      );
      assert.fail(
        `no ${what} at the receiver after ${timeoutMs / 1000}s; got: ${names.join("; ")}`,
      );
    }
    await sleep(200);
  }
}

async function started() {
  server = await startDevServer({ timeoutMs: 60_000, vars: VARS(), stateDir });
  return createClient({
    baseUrl: server.url,
    apiToken: server.apiToken,
    webhookSecret: server.webhookSecrets[0],
  });
}

test("one trace at a local OTLP receiver for a run decided after a wrangler restart", {
  timeout: 150_000,
}, async (t) => {
  try {
    let client = await started();
    const { body } = await client.startRun({
      agent: "support",
      input: "Refund order 42 for $2500",
    });
    const runId = body.runId;
    const run = await client.waitFor(runId, isPending);
    const request = run.pending;
    assert.deepEqual(request.data.approvers, { group: "finance", quorum: 2, editable: ["amount"] });

    // The halted half is exported from the first process.
    const halted = await spanArrives(
      (s) =>
        s.attributes["gen_ai.operation.name"] === "invoke_agent" &&
        s.attributes["toolnexus.run.id"] === runId &&
        s.attributes["toolnexus.run.status"] === "pending",
      "halted invoke_agent span",
    );
    const before = allSpans().length;
    t.diagnostic(`halted half: trace ${halted.traceId}, ${before} span(s); restarting wrangler`);
    assert.doesNotMatch(server.output(), RUNTIME_ERROR, server.tail());
    await server.stop();
    server = undefined;
    const stoppedAt = nanos();

    client = await started();
    const restartedAt = nanos();
    for (const decidedBy of ["ann@example.com", "bob@example.com"]) {
      await client.decide(
        { runId, requestId: request.id, decision: "approve", decidedBy },
        { expect: [202] },
      );
    }
    const done = await client.waitFor(runId, isFinished);
    assert.equal(done.status, "done");
    const resumed = await spanArrives(
      (s) =>
        s.attributes["gen_ai.operation.name"] === "invoke_agent" &&
        s.attributes["toolnexus.run.id"] === runId &&
        s.attributes["toolnexus.run.status"] === "done",
      "resumed invoke_agent span",
    );
    // Every later span of the run is in by the time its segment's span is (one batch).
    await sleep(500);

    for (const r of received) {
      assert.equal(r.error, undefined, `a body the OTLP JSON encoding refuses: ${r.error}`);
      assert.equal(r.path, "/otlp/v1/traces");
      assert.match(r.headers["content-type"] ?? "", /^application\/json/);
      assert.equal(r.headers["x-tenant"], "demo team");
    }
    const spans = allSpans().filter((s) => s.traceId === halted.traceId);
    assert.deepEqual(
      [...new Set(allSpans().map((s) => s.traceId))],
      [halted.traceId],
      "the halted and the resumed half share ONE trace id",
    );
    assert.ok(spans.length > before, "the resumed half came from the second process");
    for (const span of spans) {
      assert.equal(span.resource["service.name"], "toolnexus-edge");
      assert.equal(span.scope.name, "toolnexus-edge");
      assert.ok(span.end >= span.start, `${span.name} ends after it starts`);
      assert.equal(span.attributes["gen_ai.conversation.id"], done.threadId);
    }

    // The tree: the run span is the root; the resumed segment and the wait are its children.
    const runSpan = spans.find((s) => s.spanId === halted.spanId);
    assert.equal(runSpan?.parentSpanId, undefined, "the run span is the trace's root");
    assert.equal(
      resumed.parentSpanId,
      halted.spanId,
      "the resumed segment is a child of the run span",
    );
    assert.equal(resumed.attributes["toolnexus.run.segment"], "resume");
    const byName = (name) => spans.filter((s) => s.name === name);
    const [wait] = byName("await_decision refund_order");
    assert.ok(wait, `no await_decision span in ${spans.map((s) => s.name).join(", ")}`);
    assert.equal(wait.parentSpanId, halted.spanId);
    assert.equal(wait.attributes["toolnexus.request.id"], request.id);
    assert.equal(wait.attributes["toolnexus.request.outcome"], "approved");
    assert.equal(wait.attributes["toolnexus.request.group"], "finance");
    assert.equal(wait.attributes["toolnexus.request.quorum"], 2);
    assert.match(String(wait.attributes["toolnexus.request.decided_by_hash"]), /^[0-9a-f]{64}$/);
    assert.equal(wait.attributes["toolnexus.request.decided_by"], undefined, "never in clear");
    // The wait spans the restart: it began in the first process and ended in the second.
    assert.ok(wait.start < stoppedAt, "the wait began before the first process stopped");
    assert.ok(wait.end > restartedAt, "and ended in the second");
    assert.ok(Number(wait.attributes["toolnexus.request.wait_ms"]) >= 0);
    const [executed] = byName("execute_tool refund_order");
    assert.equal(executed?.parentSpanId, resumed.spanId, "the refund ran in the resumed segment");
    const chats = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
    assert.deepEqual(
      chats.map((s) => [s.parentSpanId === halted.spanId, s.parentSpanId === resumed.spanId]),
      [
        [true, false],
        [false, true],
      ],
      "one model call in each half",
    );
    assert.deepEqual(
      chats.map((s) => s.attributes["gen_ai.response.finish_reasons"]),
      [["tool_calls"], ["stop"]],
    );
    assert.doesNotMatch(server.output(), RUNTIME_ERROR, server.tail());
  } catch (error) {
    error.message += `\n--- wrangler dev output (last lines) ---\n${server?.tail() ?? ""}`;
    throw error;
  }
});
