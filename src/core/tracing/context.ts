/**
 * A minimal `Context` for naming a span's parent without importing `@opentelemetry/api`.
 * The API keys the active span by `Symbol.for("OpenTelemetry Context Key SPAN")` (it uses
 * `Symbol.for` on purpose, so that several copies of the API agree); a tracer from any copy
 * reads the parent from a context built here exactly as from its own.
 */
import type { ContextLike, SpanContextLike, SpanLike } from "./otel-shapes";

const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");

class MapContext implements ContextLike {
  constructor(private readonly values: ReadonlyMap<symbol, unknown>) {}
  getValue(key: symbol): unknown {
    return this.values.get(key);
  }
  setValue(key: symbol, value: unknown): ContextLike {
    return new MapContext(new Map(this.values).set(key, value));
  }
  deleteValue(key: symbol): ContextLike {
    const next = new Map(this.values);
    next.delete(key);
    return new MapContext(next);
  }
}

const EMPTY = new MapContext(new Map());

/** A context whose active span is `span`: what `startSpan(name, options, context)` takes as the parent. */
export function contextWithSpan(span: SpanLike): ContextLike {
  return EMPTY.setValue(SPAN_KEY, span);
}

/** A context whose parent is a span of another process, known only by its span context. */
export function contextWithRemoteParent(parent: SpanContextLike): ContextLike {
  return contextWithSpan(remoteSpan(parent));
}

/** The parent span's stand-in: it only reports its context (like the API's NonRecordingSpan). */
function remoteSpan(context: SpanContextLike): SpanLike {
  const self: SpanLike = {
    spanContext: () => context,
    setAttribute: () => self,
    setAttributes: () => self,
    setStatus: () => self,
    recordException: () => undefined,
    end: () => undefined,
    isRecording: () => false,
  };
  return self;
}
