/**
 * The clients tracing.mjs and tracing-profile.mjs compare: scenario 1's loop (the mock
 * OpenAI-compatible endpoint as an injected `fetch`, no sockets) with no tracer, with the
 * API's no-op tracer (`trace.getTracer()` and no provider registered), with the
 * OpenTelemetry SDK recording into an `InMemorySpanExporter`, and with the edge's own
 * tracer feeding its OTLP exporter's queue (never sent).
 */
import path from "node:path";
import { createRequire } from "node:module";
import { mockFetch, LOOP_FINAL } from "./mock-server.mjs";
import { toolnexusSetup, QUESTION } from "./loop-systems.mjs";
import { importKernel, importTs, ROOT } from "./build.mjs";

const fromRoot = createRequire(path.join(ROOT, "package.json"));
export const { trace } = fromRoot("@opentelemetry/api");
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = fromRoot(
  "@opentelemetry/sdk-trace-base",
);

export const kernel = await importKernel();
export const tracingModule = await importTs("src/core/tracing/index.ts", "tracing", {
  external: ["zod"],
});
const telemetry = await importTs("src/edge/telemetry/index.ts", "telemetry", {
  external: ["zod"],
});

/** Scenario 1's client, with `tracer` set (or not): every other option the same. */
async function variant(tracer, after = () => undefined) {
  const extra = tracer ? { tracer, tracing: { agentName: "bench" } } : {};
  const { client, toolkit } = await toolnexusSetup("http://mock", kernel, mockFetch, false, extra);
  return async () => {
    const result = await client.run(QUESTION, { toolkit });
    after();
    return result.text;
  };
}

/**
 * `{ runs, counts, exporter }`: `runs[name]()` is one run of that variant; `counts.spans` is
 * how many spans the SDK recorded in its last run, `counts.edge` how many the edge tracer
 * ended in all; `exporter` is the edge's (flush it now and then to keep its queue bounded).
 */
export async function tracingVariants() {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const counts = { spans: 0, edge: 0 };
  const exporter = new telemetry.OtlpExporter({
    url: "http://127.0.0.1:9/v1/traces",
    headers: {},
    resource: { serviceName: "bench" },
    scope: { name: "bench" },
    maxQueue: 1_000_000,
  });
  const edgeTracer = telemetry.createEdgeTracer({
    onEnd: (span) => {
      counts.edge += 1;
      exporter.push(span);
    },
  });
  const runs = {
    none: await variant(undefined),
    // The same as the baseline, measured as a variant: its ratio is the noise floor of the run.
    again: await variant(undefined),
    noop: await variant(trace.getTracer("bench")),
    sdk: await variant(provider.getTracer("bench"), () => {
      counts.spans = memory.getFinishedSpans().length;
      memory.reset();
    }),
    edge: await variant(edgeTracer),
  };
  // The mock's first answer depends on the question text; check every variant ends right once.
  for (const [name, run] of Object.entries(runs)) {
    const text = await run();
    if (text !== LOOP_FINAL) {
      throw new Error(`${name}: unexpected final text ${JSON.stringify(text)}`);
    }
  }
  return { runs, counts, exporter };
}
