/**
 * What `createClient({ tracer, tracing })` takes, and what a traced run leaves on its result.
 */
import type { TracerLike } from "./otel-shapes";

export interface TracingOptions {
  /** `gen_ai.agent.name`; the run span is named `invoke_agent {agentName}`. */
  agentName?: string;
  /** `gen_ai.agent.id`. */
  agentId?: string;
  /** `gen_ai.conversation.id` on every span (the edge passes the thread id). */
  conversationId?: string;
  /** `gen_ai.provider.name`; default the wire style (`openai`, `anthropic`), `_OTHER` in process. */
  provider?: string;
  /**
   * Record message contents, tool arguments and results and refusal reasons on the spans
   * (`gen_ai.input.messages`, `gen_ai.tool.call.arguments`, …). Off by default: they may
   * hold personal data.
   */
  recordContent?: boolean;
  /**
   * Who decided a wait: `{ salt }` records a salted SHA-256 (`toolnexus.request.decided_by_hash`),
   * `"clear"` the member id itself. Absent: not recorded.
   */
  decider?: { salt: string } | "clear";
  /**
   * The clock for span times, epoch ms; tests pass a fake one. Default `Date.now`. Span
   * times are handed to the tracer as these numbers (a `Date` per span costs more than a
   * no-op tracer's whole span); the SDK reads a number above `performance.now()` as epoch ms.
   */
  now?: () => number;
}

/** The options a client reads for tracing (part of `CommonClientOptions`). */
export interface TracedClientOptions {
  /**
   * An OpenTelemetry tracer (`trace.getTracer("my-app")` from `@opentelemetry/api`, or any
   * object of the same shape). Without one, nothing is traced and nothing is added to a run.
   */
  tracer?: TracerLike;
  tracing?: TracingOptions;
}

/**
 * `RunResult.trace`: the run span's W3C context, so the halted half and a resumed half in
 * another process share one trace; plain JSON like the rest of a halted result.
 */
export interface TraceCarrier {
  /** `00-<trace id>-<span id of the run's first invoke_agent span>-<flags>`. */
  traceparent: string;
  tracestate?: string;
  /** Requests still waiting for an answer → when the wait began (epoch ms). */
  waiting?: Record<string, number>;
}
