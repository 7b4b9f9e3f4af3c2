/**
 * Tracing overhead (issue 29). The loop of scenario 1 (one question, two turns, two tools,
 * the mock OpenAI-compatible endpoint as an injected `fetch`: no sockets, so the client's
 * own work is what is measured), run interleaved in one process in four variants:
 * - no tracer (the baseline), and the same again as a variant (its ratio is the noise floor);
 * - a no-op tracer (`trace.getTracer()` of `@opentelemetry/api` with no provider
 *   registered): target ≤ 1.02× the baseline;
 * - the OpenTelemetry SDK recording into an `InMemorySpanExporter` (reset after each run);
 * - the edge's own tracer (src/edge/telemetry) feeding its OTLP exporter's queue (not sent).
 * The cost per span is (variant − baseline) / spans per run, from the medians.
 *
 *   node tracing.mjs [--runs 3000] [--warmup 2000]
 */
import { performance } from "node:perf_hooks";
import { summarize, table, ratio, arg, machine, shuffled } from "./lib/stats.mjs";
import { trace, tracingModule, tracingVariants } from "./lib/tracing-variants.mjs";

const RUNS = Number(arg("runs", "3000"));
const WARMUP = Number(arg("warmup", "2000"));
const { runs, counts, exporter } = await tracingVariants();
// `--only none,again,noop` measures a subset (the baseline is always in).
const only = arg("only", "");
const names = Object.keys(runs).filter((n) => !only || n === "none" || only.split(",").includes(n));

const samples = Object.fromEntries(names.map((n) => [n, []]));
for (let i = 0; i < WARMUP + RUNS; i++) {
  for (const name of shuffled(names)) {
    const t0 = performance.now();
    await runs[name]();
    if (i >= WARMUP) {
      samples[name].push(performance.now() - t0);
    }
  }
  if (exporter.queued > 100_000) {
    await exporter.flush().catch(() => undefined); // keep the queue bounded (the send fails fast)
  }
}

const stats = Object.fromEntries(names.map((n) => [n, summarize(samples[n])]));
const base = stats.none.median;
const us = (v) => (v * 1000).toFixed(2);
const perSpan = (n) =>
  counts.spans && stats[n] ? us((stats[n].median - base) / counts.spans) : "–";
const rowOf = (label, n, r, span = "–") =>
  stats[n]
    ? [label, us(stats[n].median), us(stats[n].p95), r(stats[n].median, base), span]
    : [label, "–", "–", "–", "–"];
console.log(machine());
console.log(`spans per run (recording): ${counts.spans}; edge tracer spans seen: ${counts.edge}`);
console.log(
  table(
    `Tracing overhead: ${RUNS} runs each, interleaved (in-process mock, µs)`,
    ["variant", "median µs", "p95 µs", "ratio vs no tracer", "µs per span"],
    [
      rowOf("no tracer (baseline)", "none", () => "1.00×"),
      rowOf("no tracer again (noise floor)", "again", ratio3),
      rowOf("no-op tracer (@opentelemetry/api)", "noop", ratio3),
      rowOf("SDK + InMemorySpanExporter", "sdk", ratio, perSpan("sdk")),
      rowOf("edge tracer + OTLP queue", "edge", ratio, perSpan("edge")),
    ],
  ),
);

// What a no-op tracer adds per run, isolated: one segment begun and ended (the span of the
// API's no-op tracer, the trace context looked at), without the loop around it.
{
  const tracing = tracingModule.runTracing({ tracer: trace.getTracer("bench"), style: "openai" });
  const config = { model: "m", callModel: async () => ({}), maxTurns: 10, hooks: {}, metric() {} };
  const result = {
    runId: "r",
    status: "done",
    usage: { promptTokens: 1, completionTokens: 1 },
    turns: 1,
    model: "m",
  };
  const N = 200_000;
  for (let i = 0; i < N; i++) {
    tracing.begin(config, undefined).end(result);
  }
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    tracing.begin(config, undefined).end(result);
  }
  const perRun = (performance.now() - t0) / N;
  console.log(
    `no-op tracer, one segment isolated: ${us(perRun)} µs per run = ${((perRun / base) * 100).toFixed(2)} % of the baseline median`,
  );
}

function ratio3(v, b) {
  return `${(v / b).toFixed(3)}×`;
}
