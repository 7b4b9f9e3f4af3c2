/**
 * A small in-process tracer for the edge, of the shape the kernel takes
 * (`createClient({ tracer })`): it samples everything, keeps the parent the kernel names
 * through its context, and hands each ended span, as plain data, to `onEnd` (the OTLP
 * exporter's queue). Kept small on purpose: the OpenTelemetry SDK would add its weight to
 * every worker bundle for features (processors, samplers, context managers) the edge does
 * not use; bench/bundle.mjs measures what this costs instead.
 */
import type {
  Attributes,
  AttributeValue,
  ContextLike,
  SpanContextLike,
  SpanLike,
  SpanOptionsLike,
  TimeInput,
  TracerLike,
} from "../../core/tracing";

const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");
/** Per span: attributes and events beyond these are dropped (and counted on the span). */
export const MAX_ATTRIBUTES = 128;
export const MAX_EVENTS = 32;
/** Longer string attribute values are cut (a span is not a store for documents). */
export const MAX_VALUE_LENGTH = 16_384;

export interface FinishedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** The API's `SpanKind` (INTERNAL 0, SERVER 1, CLIENT 2, …). */
  kind: number;
  /** Unix nanoseconds, as bigint: epoch milliseconds × 10⁶ exceeds 2⁵³. */
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, AttributeValue>;
  droppedAttributesCount: number;
  events: Array<{ name: string; timeUnixNano: bigint; attributes: Record<string, AttributeValue> }>;
  status: { code: number; message?: string };
  traceFlags: number;
}

export interface EdgeTracerOptions {
  onEnd(span: FinishedSpan): void;
  /** Epoch ms for spans started or ended without a time. Default `Date.now`. */
  now?: () => number;
}

export function createEdgeTracer(options: EdgeTracerOptions): TracerLike {
  const now = options.now ?? Date.now;
  return {
    startSpan(name: string, spanOptions: SpanOptionsLike = {}, context?: ContextLike): SpanLike {
      const parent = spanOptions.root ? undefined : parentOf(context);
      return new EdgeSpan(name, spanOptions, {
        parent,
        start: toNanos(spanOptions.startTime ?? now()),
        now,
        onEnd: options.onEnd,
      });
    },
  };
}

class EdgeSpan implements SpanLike {
  readonly #context: SpanContextLike;
  readonly #record: FinishedSpan;
  #ended = false;

  private readonly now: () => number;
  private readonly onEnd: (span: FinishedSpan) => void;

  /** `start` in epoch nanoseconds; `now` and `onEnd` are the tracer's clock and exporter. */
  constructor(
    name: string,
    options: SpanOptionsLike,
    {
      parent,
      start,
      now,
      onEnd,
    }: {
      parent: SpanContextLike | undefined;
      start: bigint;
      now: () => number;
      onEnd: (span: FinishedSpan) => void;
    },
  ) {
    this.now = now;
    this.onEnd = onEnd;
    this.#context = {
      traceId: parent?.traceId ?? randomHex(16),
      spanId: randomHex(8),
      traceFlags: 1,
      ...(parent?.traceState ? { traceState: parent.traceState } : {}),
    };
    this.#record = {
      traceId: this.#context.traceId,
      spanId: this.#context.spanId,
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name,
      kind: options.kind ?? 0,
      startTimeUnixNano: start,
      endTimeUnixNano: start,
      attributes: {},
      droppedAttributesCount: 0,
      events: [],
      status: { code: 0 },
      traceFlags: 1,
    };
    if (options.attributes) {
      this.setAttributes(options.attributes);
    }
  }

  spanContext(): SpanContextLike {
    return this.#context;
  }
  isRecording(): boolean {
    return !this.#ended;
  }
  setAttribute(key: string, value: AttributeValue): this {
    if (this.#ended || value === undefined || value === null) {
      return this;
    }
    const attributes = this.#record.attributes;
    if (!(key in attributes) && Object.keys(attributes).length >= MAX_ATTRIBUTES) {
      this.#record.droppedAttributesCount += 1;
      return this;
    }
    attributes[key] = typeof value === "string" ? cut(value) : value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) {
      if (value !== undefined) {
        this.setAttribute(key, value);
      }
    }
    return this;
  }
  setStatus(status: { code: number; message?: string }): this {
    if (!this.#ended) {
      this.#record.status = {
        code: status.code,
        ...(status.message ? { message: cut(status.message) } : {}),
      };
    }
    return this;
  }
  recordException(exception: Error | string, time?: TimeInput): void {
    if (this.#ended || this.#record.events.length >= MAX_EVENTS) {
      return;
    }
    const error = typeof exception === "string" ? { name: "Error", message: exception } : exception;
    this.#record.events.push({
      name: "exception",
      timeUnixNano: toNanos(time ?? this.now()),
      attributes: { "exception.type": error.name, "exception.message": cut(error.message) },
    });
  }
  end(endTime?: TimeInput): void {
    if (this.#ended) {
      return;
    }
    this.#ended = true;
    const end = toNanos(endTime ?? this.now());
    // A span never ends before it starts (bigints: no Math.max).
    if (end > this.#record.startTimeUnixNano) {
      this.#record.endTimeUnixNano = end;
    }
    try {
      this.onEnd(this.#record);
    } catch {
      // An exporter's queue must never break the code that ends a span.
    }
  }
}

function parentOf(context: ContextLike | undefined): SpanContextLike | undefined {
  const span = context?.getValue(SPAN_KEY) as { spanContext?: () => SpanContextLike } | undefined;
  const parent = typeof span?.spanContext === "function" ? span.spanContext() : undefined;
  return parent && /^[0-9a-f]{32}$/.test(parent.traceId) && /^[0-9a-f]{16}$/.test(parent.spanId)
    ? parent
    : undefined;
}

/** Epoch ms (fractions kept to the nanosecond), a Date, or `[seconds, nanoseconds]` → unix nanoseconds. */
export function toNanos(time: TimeInput): bigint {
  if (Array.isArray(time)) {
    return BigInt(Math.trunc(time[0])) * 1_000_000_000n + BigInt(Math.trunc(time[1]));
  }
  const ms = time instanceof Date ? time.getTime() : time;
  if (!Number.isFinite(ms)) {
    return 0n;
  }
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1_000_000));
}

function randomHex(bytes: number): string {
  const buffer = crypto.getRandomValues(new Uint8Array(bytes));
  let hex = "";
  for (const byte of buffer) {
    hex += byte.toString(16).padStart(2, "0");
  }
  // All zeros is the invalid id; 2^-64 at worst, but cheap to rule out.
  return /^0+$/.test(hex) ? randomHex(bytes) : hex;
}

function cut(value: string): string {
  return value.length > MAX_VALUE_LENGTH ? `${value.slice(0, MAX_VALUE_LENGTH)}…` : value;
}
