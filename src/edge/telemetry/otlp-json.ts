/**
 * Spans in the OTLP/HTTP JSON encoding (opentelemetry-proto, `ExportTraceServiceRequest`):
 * `resourceSpans[].scopeSpans[].spans[]`, ids as lowercase hex, times as unix-nanosecond
 * decimal strings, attributes as `{ key, value: AnyValue }`, enums as their numbers.
 */
import type { AttributeValue } from "../../core/tracing";
import type { FinishedSpan } from "./tracer";

export interface OtlpResource {
  serviceName: string;
  serviceVersion?: string;
}

type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: AnyValue[] } };

export interface KeyValue {
  key: string;
  value: AnyValue;
}

export function encodeTraces(
  spans: readonly FinishedSpan[],
  resource: OtlpResource,
  scope: { name: string; version?: string },
): string {
  const resourceAttributes: KeyValue[] = [
    { key: "service.name", value: { stringValue: resource.serviceName } },
    ...(resource.serviceVersion
      ? [{ key: "service.version", value: { stringValue: resource.serviceVersion } }]
      : []),
    { key: "telemetry.sdk.name", value: { stringValue: "toolnexus-edge" } },
    { key: "telemetry.sdk.language", value: { stringValue: "webjs" } },
  ];
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: resourceAttributes },
        scopeSpans: [
          {
            scope: { name: scope.name, ...(scope.version ? { version: scope.version } : {}) },
            spans: spans.map(encodeSpan),
          },
        ],
      },
    ],
  });
}

function encodeSpan(span: FinishedSpan) {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    flags: span.traceFlags,
    name: span.name,
    // OTLP's SpanKind counts from UNSPECIFIED = 0; the API's from INTERNAL = 0.
    kind: span.kind + 1,
    startTimeUnixNano: span.startTimeUnixNano.toString(),
    endTimeUnixNano: span.endTimeUnixNano.toString(),
    attributes: keyValues(span.attributes),
    ...(span.droppedAttributesCount ? { droppedAttributesCount: span.droppedAttributesCount } : {}),
    events: span.events.map((event) => ({
      name: event.name,
      timeUnixNano: event.timeUnixNano.toString(),
      attributes: keyValues(event.attributes),
    })),
    status: {
      code: span.status.code,
      ...(span.status.message ? { message: span.status.message } : {}),
    },
  };
}

export function keyValues(attributes: Record<string, AttributeValue>): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    const encoded = anyValue(value);
    if (encoded) {
      out.push({ key, value: encoded });
    }
  }
  return out;
}

function anyValue(value: unknown): AnyValue | undefined {
  switch (typeof value) {
    case "string":
      return { stringValue: value };
    case "boolean":
      return { boolValue: value };
    case "number":
      // int64 travels as a decimal string in OTLP JSON; a non-integer is a double.
      return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
    case "object":
      if (Array.isArray(value)) {
        const values = value.map(anyValue).filter((v): v is AnyValue => v !== undefined);
        return { arrayValue: { values } };
      }
      return undefined;
    default:
      return undefined;
  }
}
