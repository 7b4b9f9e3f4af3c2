/**
 * Decodes an OTLP/HTTP JSON `ExportTraceServiceRequest` by the rules of the OpenTelemetry
 * Protocol's JSON encoding (the proto3 JSON mapping with OTLP's exceptions): lowerCamelCase
 * field names, trace and span ids as hex (not base64), enums as integers, 64-bit integers as
 * decimal strings or numbers, each `AnyValue` exactly one of its members. Anything else
 * throws, naming the field: a collector would refuse it too. For the node:test suites that
 * read what the edge sends (test/dev/); the vitest ones have test/helpers/otlp.ts.
 */

const HEX = /^[0-9a-fA-F]*$/;

class OtlpDecodeError extends Error {}
const fail = (where, what) => {
  throw new OtlpDecodeError(`${where}: ${what}`);
};

function object(value, where) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail(where, `expected an object, got ${JSON.stringify(value)}`);
  }
  return value;
}

function list(value, where) {
  if (value === undefined) {
    return []; // a repeated field left out is empty
  }
  if (!Array.isArray(value)) {
    fail(where, "expected an array");
  }
  return value;
}

/** `bytes` trace/span id: hex of exactly `bytes` bytes, or empty where `optional`. */
function id(value, bytes, where, optional = false) {
  if (value === undefined || value === "") {
    return optional ? undefined : fail(where, "missing");
  }
  if (typeof value !== "string" || !HEX.test(value) || value.length !== bytes * 2) {
    fail(where, `expected ${bytes * 2} hex digits, got ${JSON.stringify(value)}`);
  }
  if (/^0+$/.test(value)) {
    fail(where, "all zeros is an invalid id");
  }
  return value.toLowerCase();
}

/** (u)int64 / fixed64: a decimal string or a JSON number. */
function int64(value, where) {
  if (typeof value === "number" && Number.isSafeInteger(value)) {
    return BigInt(value);
  }
  if (typeof value === "string" && /^-?\d+$/.test(value)) {
    return BigInt(value);
  }
  return fail(where, `expected a 64-bit integer, got ${JSON.stringify(value)}`);
}

function enumValue(value, max, where) {
  if (value === undefined) {
    return 0;
  }
  if (!Number.isInteger(value) || value < 0 || value > max) {
    fail(where, `expected an enum integer 0..${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** AnyValue → a JS value (int64 as a Number when safe, else a BigInt). */
export function anyValue(value, where) {
  const members = Object.entries(object(value, where));
  if (members.length !== 1) {
    fail(where, `an AnyValue has exactly one member, got ${members.length}`);
  }
  const [kind, v] = members[0];
  switch (kind) {
    case "stringValue":
      return typeof v === "string" ? v : fail(where, "stringValue is not a string");
    case "boolValue":
      return typeof v === "boolean" ? v : fail(where, "boolValue is not a boolean");
    case "intValue": {
      const n = int64(v, `${where}.intValue`);
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(n)
        : n;
    }
    case "doubleValue":
      return typeof v === "number" ? v : fail(where, "doubleValue is not a number");
    case "arrayValue":
      return list(object(v, where).values, `${where}.arrayValue.values`).map((x, i) =>
        anyValue(x, `${where}.arrayValue.values[${i}]`),
      );
    case "kvlistValue":
      return keyValues(object(v, where).values, `${where}.kvlistValue.values`);
    case "bytesValue":
      return typeof v === "string" ? v : fail(where, "bytesValue is not base64 text");
    default:
      return fail(where, `unknown AnyValue member ${kind}`);
  }
}

/** A KeyValue list → a plain object; a key twice is an error. */
export function keyValues(value, where) {
  const out = {};
  for (const [i, kv] of list(value, where).entries()) {
    const at = `${where}[${i}]`;
    const { key } = object(kv, at);
    if (typeof key !== "string") {
      fail(at, "key is not a string");
    }
    if (Object.hasOwn(out, key)) {
      fail(at, `attribute ${key} twice`);
    }
    out[key] = anyValue(kv.value, `${at}.value`);
  }
  return out;
}

/** Every span of one request body, with its resource attributes and instrumentation scope. */
export function decodeTraceRequest(body) {
  const spans = [];
  for (const [r, rs] of list(object(body, "body").resourceSpans, "resourceSpans").entries()) {
    const at = `resourceSpans[${r}]`;
    const resource = keyValues(object(rs, at).resource?.attributes, `${at}.resource.attributes`);
    for (const [s, ss] of list(rs.scopeSpans, `${at}.scopeSpans`).entries()) {
      const scopeAt = `${at}.scopeSpans[${s}]`;
      const scope = object(ss, scopeAt).scope ?? {};
      for (const [i, span] of list(ss.spans, `${scopeAt}.spans`).entries()) {
        const where = `${scopeAt}.spans[${i}]`;
        object(span, where);
        if (typeof span.name !== "string" || span.name === "") {
          fail(`${where}.name`, "a span has a name");
        }
        const start = int64(span.startTimeUnixNano, `${where}.startTimeUnixNano`);
        const end = int64(span.endTimeUnixNano, `${where}.endTimeUnixNano`);
        const status = span.status === undefined ? {} : object(span.status, `${where}.status`);
        spans.push({
          resource,
          scope: { name: scope.name, version: scope.version },
          traceId: id(span.traceId, 16, `${where}.traceId`),
          spanId: id(span.spanId, 8, `${where}.spanId`),
          parentSpanId: id(span.parentSpanId, 8, `${where}.parentSpanId`, true),
          name: span.name,
          kind: enumValue(span.kind, 5, `${where}.kind`),
          start,
          end,
          attributes: keyValues(span.attributes, `${where}.attributes`),
          status: {
            code: enumValue(status.code, 2, `${where}.status.code`),
            ...(status.message ? { message: status.message } : {}),
          },
        });
      }
    }
  }
  return spans;
}
