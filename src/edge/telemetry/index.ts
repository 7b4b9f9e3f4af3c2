/**
 * Traces at the edge (docs/observability.md, "Traces and the run timeline"): with `OTEL_EXPORTER_OTLP_ENDPOINT` set, a tracer for
 * `createClient({ tracer })` whose spans are batched and sent as OTLP/HTTP JSON; without it,
 * nothing (no tracer, no cost). One exporter per isolate and settings, so spans of several
 * requests share batches; the caller hands `flush()` to `waitUntil` after its response.
 */
import { type TracerLike, INSTRUMENTATION_SCOPE } from "../../core/tracing";
import { createEdgeTracer } from "./tracer";
import { OtlpExporter, type ExportStats } from "./exporter";
import { type EdgeEnv, settings } from "../settings";

export { createEdgeTracer, toNanos, type FinishedSpan, type EdgeTracerOptions } from "./tracer";
export { encodeTraces, type OtlpResource } from "./otlp-json";
export { OtlpExporter, type OtlpExporterOptions, type ExportStats } from "./exporter";
export { parseOtlpHeaders, tracesUrl, OtlpConfigError } from "../settings/otlp";
export { deciderSalt } from "./decider-salt";

export interface EdgeTelemetry {
  tracer: TracerLike;
  /** Sends what is queued; never rejects. Give it to `ctx.waitUntil`. */
  flush(): Promise<void>;
  stats(): ExportStats;
}

export interface EdgeTelemetryOptions {
  report?: (error: Error) => void;
  fetch?: typeof fetch;
  serviceName?: string;
  serviceVersion?: string;
}

const exporters = new Map<string, OtlpExporter>();

/** The edge's telemetry for this environment, or undefined without an endpoint. Throws `OtlpConfigError` on a malformed setting. */
export function edgeTelemetry(
  env: EdgeEnv,
  options: EdgeTelemetryOptions = {},
): EdgeTelemetry | undefined {
  const { otlp } = settings(env);
  if (!otlp) {
    return undefined;
  }
  const key = JSON.stringify([otlp.url, otlp.headers, options.serviceName]);
  let exporter = exporters.get(key);
  if (!exporter) {
    exporter = new OtlpExporter({
      ...otlp,
      resource: {
        serviceName: options.serviceName ?? "toolnexus-edge",
        ...(options.serviceVersion ? { serviceVersion: options.serviceVersion } : {}),
      },
      scope: { name: INSTRUMENTATION_SCOPE },
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.report ? { report: options.report } : {}),
    });
    exporters.set(key, exporter);
  }
  const target = exporter;
  return {
    tracer: createEdgeTracer({ onEnd: (span) => target.push(span) }),
    flush: () => target.flush(),
    stats: () => target.stats(),
  };
}

/** Prometheus lines for /metrics: the export counters of every exporter in this isolate. */
export function telemetryMetrics(): string {
  let exported = 0;
  let failed = 0;
  let dropped = 0;
  for (const exporter of exporters.values()) {
    const s = exporter.stats();
    exported += s.exportedSpans;
    failed += s.failedExports;
    dropped += s.droppedSpans;
  }
  return [
    "# HELP toolnexus_trace_spans_exported_total Spans sent to the OTLP collector.",
    "# TYPE toolnexus_trace_spans_exported_total counter",
    `toolnexus_trace_spans_exported_total ${exported}`,
    "# HELP toolnexus_trace_export_failures_total OTLP export requests that failed after their retries.",
    "# TYPE toolnexus_trace_export_failures_total counter",
    `toolnexus_trace_export_failures_total ${failed}`,
    "# HELP toolnexus_trace_spans_dropped_total Spans lost to a full queue or a failed export.",
    "# TYPE toolnexus_trace_spans_dropped_total counter",
    `toolnexus_trace_spans_dropped_total ${dropped}`,
    "",
  ].join("\n");
}
