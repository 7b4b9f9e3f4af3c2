/**
 * Reading OTLP/HTTP JSON bodies as a collector stores them: structure, never text. The
 * decoding (by the OTLP JSON encoding's rules, refusing anything else) is otlp-json.mjs,
 * shared with the node:test suites under test/dev/.
 */
import { decodeTraceRequest } from "./otlp-json.mjs";

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
  return bodies.flatMap((body) =>
    decodeTraceRequest(body).map(({ parentSpanId, ...span }) =>
      parentSpanId === undefined ? span : { ...span, parentSpanId },
    ),
  );
}
