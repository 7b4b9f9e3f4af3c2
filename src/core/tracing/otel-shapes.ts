/**
 * The parts of `@opentelemetry/api` the kernel calls, written as structural types so that
 * `src/core` depends on no OpenTelemetry package: `trace.getTracer("my-app")` from the API
 * (any 1.x), the edge's own small tracer (src/edge/telemetry) or a test double all fit.
 * Numbers, not enums: `SpanKind` and `SpanStatusCode` are plain numbers in the API too.
 */

export type AttributeValue = string | number | boolean | string[] | number[] | boolean[];
export type Attributes = Record<string, AttributeValue | undefined>;

/** Epoch milliseconds, a `Date`, or the API's `[seconds, nanoseconds]`. */
export type TimeInput = number | Date | [number, number];

export interface SpanContextLike {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  /** W3C trace flags; bit 0 is "sampled". */
  traceFlags: number;
  isRemote?: boolean;
  traceState?: { serialize(): string };
}

export interface SpanLike {
  spanContext(): SpanContextLike;
  setAttribute(key: string, value: AttributeValue): unknown;
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error | string, time?: TimeInput): void;
  end(endTime?: TimeInput): void;
  isRecording(): boolean;
}

/** The API's `Context`: an immutable map keyed by symbols. */
export interface ContextLike {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): ContextLike;
  deleteValue(key: symbol): ContextLike;
}

export interface SpanOptionsLike {
  kind?: number;
  attributes?: Attributes;
  startTime?: TimeInput;
  root?: boolean;
}

/** What `createClient({ tracer })` accepts: `@opentelemetry/api`'s `Tracer` fits. */
export interface TracerLike {
  startSpan(name: string, options?: SpanOptionsLike, context?: ContextLike): SpanLike;
}

/** `SpanKind` of the API. */
export const SPAN_KIND = { INTERNAL: 0, SERVER: 1, CLIENT: 2 } as const;
/** `SpanStatusCode` of the API. */
export const STATUS = { UNSET: 0, OK: 1, ERROR: 2 } as const;
