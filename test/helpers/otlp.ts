/** Reading OTLP/HTTP JSON bodies as a collector stores them: structure, never text. */
import { expect } from "vitest";

export interface DecodedSpan {
  resource: Record<string, unknown>;
  scope: { name?: string; version?: string };
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
}

/** Every span of every ExportTraceServiceRequest body, with its resource and scope. */
export function decodeOtlp(bodies: unknown[]): DecodedSpan[] {
  const spans: DecodedSpan[] = [];
  for (const body of bodies as any[]) {
    expect(Array.isArray(body.resourceSpans)).toBe(true);
    for (const rs of body.resourceSpans) {
      for (const ss of rs.scopeSpans) {
        for (const span of ss.spans) {
          expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
          expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
          spans.push({
            resource: attributesOf(rs.resource?.attributes ?? []),
            scope: ss.scope ?? {},
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            kind: span.kind,
            start: BigInt(span.startTimeUnixNano),
            end: BigInt(span.endTimeUnixNano),
            attributes: attributesOf(span.attributes ?? []),
            status: span.status ?? {},
          });
        }
      }
    }
  }
  return spans;
}

/** An OTLP KeyValue list → a plain object (each AnyValue by its one member; int64 as number). */
export function attributesOf(
  list: Array<{ key: string; value: Record<string, unknown> }>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list) {
    const [kind, v] = Object.entries(value)[0] as [string, any];
    out[key] =
      kind === "intValue"
        ? Number(v)
        : kind === "arrayValue"
          ? (v.values as any[]).map((x) => Object.values(x)[0])
          : v;
  }
  return out;
}
