/**
 * Tracing for one drive (docs/observability.md, "Traces and the run timeline", "One trace across a durable halt"): with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` set, the client gets the edge's tracer and the run's tracing
 * options; the halted result's `trace` is stored with the suspension (runs.trace, schema v8)
 * and handed back to the resumed half with who decided and through which channel, so both
 * halves are one trace whichever isolate drives them. Without the endpoint this returns
 * nothing and the client is built exactly as before.
 */
import type { TraceCarrier, TracedClientOptions } from "../../../src/core/tracing/index";
import { traceIdOf } from "../../../src/core/tracing/index";
import { deciderSalt, edgeTelemetry } from "../../../src/edge/telemetry/index";
import type { AgentDefinition } from "../../../src/edge/agent";
import type { DriverDeps, Work } from "./driver-deps";
import type { RunRow } from "../../storage/run-store";

export interface DriveTracing {
  /** What `createClient` takes: `tracer` and `tracing`. */
  client: TracedClientOptions;
  /** Sends the drive's spans after the response; never rejects. */
  flush(): Promise<void>;
}

/** The tracer and options for this drive, or undefined without an endpoint (or with a bad one, reported). */
export async function driveTracing(
  deps: DriverDeps,
  run: RunRow,
  agent: AgentDefinition,
): Promise<DriveTracing | undefined> {
  const ids = { runId: run.runId, threadId: run.threadId };
  let telemetry: ReturnType<typeof edgeTelemetry>;
  try {
    telemetry = edgeTelemetry(deps.env, {
      // The exporter is shared by the isolate's drives: its failures belong to no one run.
      report: (error) => deps.report?.(error, { source: "telemetry", recoverable: true }),
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
  } catch (error) {
    // A malformed OTEL_* setting never fails a run: it runs untraced and the sink says why.
    deps.report?.(error, { source: "telemetry", ...ids, recoverable: false });
    return undefined;
  }
  if (!telemetry) {
    return undefined;
  }
  return {
    client: {
      tracer: telemetry.tracer,
      tracing: {
        agentName: agent.name,
        conversationId: run.threadId,
        decider: { salt: await deciderSalt(deps.config.webhookSecrets) },
      },
    },
    flush: telemetry.flush,
  };
}

/** The stored trace context and, for an answer, who decided: spread into runWithAnswer / continueRun. */
export function resumedTrace(
  run: RunRow,
  work: Work,
): { trace?: TraceCarrier; decidedBy?: string; channel?: string } {
  const trace = run.trace ?? undefined;
  if (!trace) {
    return {};
  }
  if (work.kind !== "answer") {
    return { trace };
  }
  return {
    trace,
    channel: work.decision.channel,
    ...(work.decision.decidedBy !== null ? { decidedBy: work.decision.decidedBy } : {}),
  };
}

/** The field to store with the run's new state: the carrier, when the run is traced. */
export function storedTrace(trace: TraceCarrier | undefined): { trace?: TraceCarrier } {
  return trace ? { trace } : {};
}

/** The run's trace id from its stored context, for the error sink's log line; undefined untraced. */
export function traceIdOfRun(run: RunRow): string | undefined {
  return traceIdOf(run.trace?.traceparent);
}
