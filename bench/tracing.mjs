/**
 * Tracing overhead (issue 29). The loop of scenario 1 (one question, two turns, two tools,
 * the mock OpenAI-compatible endpoint as an injected `fetch`: no sockets, so the client's
 * own work is what is measured), run interleaved in one process in these variants:
 * - no tracer (the baseline), and the same again as a variant (its ratio is the noise floor);
 * - a no-op tracer (`trace.getTracer()` of `@opentelemetry/api` with no provider
 *   registered): target ≤ 1.02× the baseline;
 * - a tracer whose every span is one constant non-recording span: what the kernel's own
 *   tracing code costs a run, without the API's proxy and context lookups;
 * - a tracer that "records" into one constant sampled span whose methods do nothing: the
 *   kernel's own share of a recorded run (attributes built, wrappers, the trace carrier);
 * - the OpenTelemetry SDK recording into an `InMemorySpanExporter` (reset after each run);
 * - the edge's own tracer (src/edge/telemetry) feeding its OTLP exporter's queue (encoded
 *   and flushed between the timed blocks, so the encoding is not in the number).
 * Each round runs a block of `--block` runs of every variant, in shuffled order; a variant's
 * "paired" ratio is the median over rounds of (its block ÷ the baseline's block in the same
 * round), which a load that comes and goes (a shared machine) moves far less than a ratio
 * of overall medians. Each block is timed by the wall clock and by this process's CPU time
 * (`process.cpuUsage`: other processes' load does not count in it). The cost per span is
 * the paired CPU difference per run over the spans a recorded run has.
 *
 *   node tracing.mjs [--runs 3000] [--warmup 2000] [--block 10] [--only none,again,noop]
 *
 * `tracing-target.mjs` repeats the no-op comparison alone in fresh processes.
 */
import { performance } from "node:perf_hooks";
import { summarize, table, arg, machine, shuffled } from "./lib/stats.mjs";
import { trace, tracingModule, tracingVariants } from "./lib/tracing-variants.mjs";

const RUNS = Number(arg("runs", "3000"));
const WARMUP = Number(arg("warmup", "2000"));
const { runs, counts, exporter } = await tracingVariants();
// `--only none,again,noop` measures a subset (the baseline is always in).
const only = arg("only", "");
const names = Object.keys(runs).filter((n) => !only || n === "none" || only.split(",").includes(n));

const BLOCK = Number(arg("block", "10"));
// A child of tracing-target.mjs reports to its parent instead of printing.
const print = process.send ? () => {} : console.log;
/** Per clock (wall, and this process's CPU time), per variant: µs per run of each block. */
const samples = { wall: {}, cpu: {} };
/** Per clock, per round: each variant's block ÷ the baseline's block of that round. */
const paired = { wall: {}, cpu: {} };
for (const clock of ["wall", "cpu"]) {
  for (const n of names) {
    samples[clock][n] = [];
    paired[clock][n] = [];
  }
}
for (let round = 0; round < Math.ceil((WARMUP + RUNS) / BLOCK); round++) {
  const took = { wall: {}, cpu: {} };
  for (const name of shuffled(names)) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < BLOCK; i++) {
      await runs[name]();
    }
    took.wall[name] = ((performance.now() - t0) * 1000) / BLOCK;
    const c = process.cpuUsage(c0);
    took.cpu[name] = (c.user + c.system) / BLOCK;
  }
  if (round * BLOCK >= WARMUP) {
    for (const clock of ["wall", "cpu"]) {
      for (const name of names) {
        samples[clock][name].push(took[clock][name]);
        paired[clock][name].push(took[clock][name] / took[clock].none);
      }
    }
  }
  await exporter.flush(); // untimed: the edge's queue stays far below its bound
}

const median = (xs) => summarize(xs).median;
const fixed = (v) => v.toFixed(2);
const times = (v) => `${v.toFixed(3)}×`;
/** µs per span: the paired CPU difference per run (ratio − 1) × the baseline's CPU median. */
const perSpan = (n) =>
  counts.spans && paired.cpu[n]
    ? fixed(((median(paired.cpu[n]) - 1) * median(samples.cpu.none)) / counts.spans)
    : "–";
const rowOf = (label, n, span = "–") =>
  samples.wall[n]
    ? [
        label,
        fixed(median(samples.wall[n])),
        fixed(median(samples.cpu[n])),
        times(median(paired.wall[n])),
        times(median(paired.cpu[n])),
        span,
      ]
    : [label, "–", "–", "–", "–", "–"];
print(machine());
print(`spans per run (recording): ${counts.spans}; edge tracer spans seen: ${counts.edge}`);
print(
  table(
    `Tracing overhead: ${RUNS} runs each in blocks of ${BLOCK}, interleaved (in-process mock, µs per run)`,
    [
      "variant",
      "wall median",
      "CPU median",
      "paired ratio, wall",
      "paired ratio, CPU",
      "µs per span (CPU)",
    ],
    [
      rowOf("no tracer (baseline)", "none"),
      rowOf("no tracer again (noise floor)", "again"),
      rowOf("no-op tracer (@opentelemetry/api)", "noop"),
      rowOf("constant non-recording span (kernel's share)", "constant"),
      rowOf("recording, spans kept nowhere (kernel's share)", "recording", perSpan("recording")),
      rowOf("SDK + InMemorySpanExporter", "sdk", perSpan("sdk")),
      rowOf("edge tracer + OTLP queue", "edge", perSpan("edge")),
    ],
  ),
);
const base = median(samples.wall.none) / 1000; // ms, for the isolated segment below

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
  print(
    `no-op tracer, one segment isolated: ${(perRun * 1000).toFixed(2)} µs per run = ${((perRun / base) * 100).toFixed(2)} % of the baseline median`,
  );
}

// Forked by tracing-target.mjs: hand this process's paired CPU ratios to the parent.
if (process.send) {
  process.send(Object.fromEntries(names.map((n) => [n, median(paired.cpu[n])])));
  process.disconnect();
}
