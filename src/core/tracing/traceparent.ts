/**
 * W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/), version 00:
 * `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`. The halted `RunResult` carries the
 * run span's context in this form, so any process (or any language) can continue the trace.
 */
import type { SpanContextLike } from "./otel-shapes";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);
const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** The all-zeros test first: a no-op tracer's context is all zeros, and then no pattern runs. */
export function isValidSpanContext(context: SpanContextLike): boolean {
  const { traceId, spanId } = context;
  return (
    traceId !== ZERO_TRACE && spanId !== ZERO_SPAN && TRACE_ID.test(traceId) && SPAN_ID.test(spanId)
  );
}

/** The `traceparent` of a span context, or undefined for an invalid one (a no-op tracer's). */
export function formatTraceparent(context: SpanContextLike): string | undefined {
  if (!isValidSpanContext(context)) {
    return undefined;
  }
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, "0");
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/** The remote span context a `traceparent` names, or undefined when it is malformed or all zeros. */
export function parseTraceparent(value: unknown): SpanContextLike | undefined {
  if (typeof value !== "string") {
    return undefined;
  }
  const match = TRACEPARENT.exec(value.trim());
  if (!match) {
    return undefined;
  }
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  const context = { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
  return isValidSpanContext(context) ? context : undefined;
}

/** The trace id of a `traceparent` (for log lines), or undefined. */
export function traceIdOf(traceparent: unknown): string | undefined {
  return parseTraceparent(traceparent)?.traceId;
}
