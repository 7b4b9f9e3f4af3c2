// Types for the TypeScript tests that import otlp-json.mjs (test/helpers/otlp.ts).
export interface OtlpSpan {
  resource: Record<string, unknown>;
  scope: { name?: string; version?: string };
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 INTERNAL, 2 SERVER, 3 CLIENT, … (0 unspecified). */
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
}
export function decodeTraceRequest(body: unknown): OtlpSpan[];
export function anyValue(value: unknown, where: string): unknown;
export function keyValues(value: unknown, where: string): Record<string, unknown>;
