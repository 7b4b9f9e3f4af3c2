/**
 * The no-op tracer's target (issue 29: the kernel loop with a no-op tracer within 1.02× of
 * no tracer), measured the way a deployed worker runs: one tracer per process. `tracing.mjs`
 * times every variant in one process, so the SDK's and the edge tracer's spans make the
 * loop's call sites see their objects too, and the no-op variant pays for shapes it never
 * makes; here each fresh process runs only the baseline, the baseline again (the noise
 * floor), the API's no-op tracer and the constant non-recording tracer, paired in blocks
 * as `tracing.mjs` does. One process resolves ≈ ±2 %, so the verdict is the median over
 * `--processes` of them, with the spread printed beside it.
 *
 *   node tracing-target.mjs [--processes 16] [--runs 10000] [--warmup 3000]
 */
import { childResult } from "./lib/child.mjs";
import { arg, machine, summarize, table } from "./lib/stats.mjs";

const PROCESSES = Number(arg("processes", "16"));
const RUNS = arg("runs", "10000");
const WARMUP = arg("warmup", "3000");
const VARIANTS = {
  again: "no tracer again (noise floor)",
  noop: "no-op tracer (@opentelemetry/api)",
  constant: "constant non-recording span (kernel's share)",
};
const script = new URL("./tracing.mjs", import.meta.url).pathname;
const args = ["--runs", RUNS, "--warmup", WARMUP, "--only", Object.keys(VARIANTS).join(",")];

const results = [];
for (let i = 0; i < PROCESSES; i++) {
  results.push(await childResult(script, args, `tracing process ${i + 1}`));
}
const times = (v) => `${v.toFixed(3)}×`;
const rows = Object.entries(VARIANTS).map(([name, label]) => {
  const s = summarize(results.map((r) => r[name]));
  const under = results.filter((r) => r[name] <= 1.02).length;
  return [label, times(s.median), times(s.min), times(s.max), `${under} / ${PROCESSES}`];
});
console.log(machine());
console.log(
  table(
    `Paired CPU ratio to no tracer, per process (${PROCESSES} processes, ${RUNS} runs each after ${WARMUP})`,
    ["variant", "median", "min", "max", "processes ≤ 1.02×"],
    rows,
  ),
);
