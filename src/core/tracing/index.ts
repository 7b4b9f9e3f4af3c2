/**
 * Kernel tracing: `createClient({ tracer })` emits OpenTelemetry spans per the GenAI
 * semantic conventions, and one trace spans a run across durable halts (docs/observability.md, "Traces and the run timeline").
 */
import type { LoopConfig } from "../loop/run-loop";
import type { TracedClientOptions } from "./options";
import { beginSegment, type RunSegment, type SegmentStart } from "./run-trace";
import { SegmentStarts } from "./segment-start";

export type { TracingOptions, TracedClientOptions, TraceCarrier } from "./options";
export type {
  TracerLike,
  SpanLike,
  SpanContextLike,
  ContextLike,
  SpanOptionsLike,
  Attributes,
  AttributeValue,
  TimeInput,
} from "./otel-shapes";
export type { RunSegment, SegmentStart } from "./run-trace";
export { GENAI_SEMCONV_VERSION, GEN_AI, TOOLNEXUS, INSTRUMENTATION_SCOPE } from "./conventions";
export { formatTraceparent, parseTraceparent, traceIdOf } from "./traceparent";
export { deciderHash, waitOutcome, type WaitOutcome } from "./wait-span";

/** Starts a traced segment per run; undefined (no cost at all) without a tracer. */
export interface RunTracing {
  begin(config: LoopConfig, from?: SegmentStart): RunSegment;
}

export function runTracing(
  options: TracedClientOptions & { style?: unknown; baseUrl?: unknown },
): RunTracing | undefined {
  const tracer = options.tracer;
  if (!tracer) {
    return undefined;
  }
  const tracing = options.tracing ?? {};
  const settings = {
    tracer,
    options: tracing,
    provider: tracing.provider ?? (typeof options.style === "string" ? options.style : "_OTHER"),
    ...(typeof options.baseUrl === "string" ? { serverAddress: hostOf(options.baseUrl) } : {}),
  };
  const source = { settings, starts: new SegmentStarts(settings) };
  return { begin: (config, from) => beginSegment(source, config, from) };
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}
