/**
 * The clients tracing.mjs and tracing-profile.mjs compare: scenario 1's loop (the mock
 * OpenAI-compatible endpoint as an injected `fetch`, no sockets) with no tracer, with the
 * API's no-op tracer (`trace.getTracer()` and no provider registered), with a tracer whose
 * spans are one constant non-recording span (the kernel's own share of a no-op), with the
 * OpenTelemetry SDK recording into an `InMemorySpanExporter`, and with the edge's own
 * tracer feeding its OTLP exporter's queue (flushed between timed blocks, to a fetch that
 * answers at once).
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

/**
 * The cheapest tracer there is: every span the same constant non-recording one with an
 * invalid context. The gap between it and the API's no-op tracer is the API's own cost per
 * `startSpan` (its proxy, its global lookups, the active context); its own gap to no tracer
 * is what the kernel's tracing adds.
 */
const INVALID = { traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 };
const CONSTANT_SPAN = {
  spanContext: () => INVALID,
  setAttribute: () => CONSTANT_SPAN,
  setAttributes: () => CONSTANT_SPAN,
  setStatus: () => CONSTANT_SPAN,
  recordException: () => undefined,
  end: () => undefined,
  isRecording: () => false,
};
export const constantTracer = { startSpan: () => CONSTANT_SPAN };

/**
 * A tracer that records (as far as the kernel can tell) and keeps nothing: one constant
 * sampled span whose methods do nothing. With it a run takes the kernel's whole recording
 * path (every span's attributes built, the wrapped model caller and toolkit, the trace
 * carrier), so its gap to no tracer is the kernel's own share of a recorded span's cost.
 */
const SAMPLED = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceFlags: 1,
};
const RECORDING_SPAN = { ...CONSTANT_SPAN, spanContext: () => SAMPLED, isRecording: () => true };
export const recordingTracer = { startSpan: () => RECORDING_SPAN };

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
 * ended in all; `exporter` is the edge's (flush it between timed blocks: its queue holds 2048).
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
    // Encoded and "sent" to a fetch that answers at once: the queue stays small, no socket.
    fetch: async () => new Response("{}", { status: 200 }),
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
    constant: await variant(constantTracer),
    recording: await variant(recordingTracer),
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
