// The tests' OTLP JSON decoder (test/helpers/otlp-json.mjs) follows the encoding and refuses
// what a collector would: otherwise a test reading the edge's export could pass on a bad body.
import { describe, expect, it } from "vitest";
import { decodeTraceRequest } from "../helpers/otlp-json.mjs";

const span = (over: Record<string, unknown> = {}) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "svc" } }] },
      scopeSpans: [
        {
          scope: { name: "scope" },
          spans: [
            {
              traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
              spanId: "00f067aa0ba902b7",
              name: "chat m",
              kind: 3,
              startTimeUnixNano: "1767603600000000000",
              endTimeUnixNano: 1767603600000000,
              attributes: [
                { key: "n", value: { intValue: "12" } },
                { key: "xs", value: { arrayValue: { values: [{ stringValue: "stop" }] } } },
                { key: "ok", value: { boolValue: true } },
              ],
              status: { code: 2, message: "boom" },
              ...over,
            },
          ],
        },
      ],
    },
  ],
});

describe("OTLP JSON decoding for the tests", () => {
  it("decodes ids, 64-bit integers as strings or numbers, AnyValues and the status", () => {
    const [decoded] = decodeTraceRequest(span());
    expect(decoded).toEqual({
      resource: { "service.name": "svc" },
      scope: { name: "scope", version: undefined },
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      parentSpanId: undefined,
      name: "chat m",
      kind: 3,
      start: 1767603600000000000n,
      end: 1767603600000000n,
      attributes: { n: 12, xs: ["stop"], ok: true },
      status: { code: 2, message: "boom" },
    });
  });

  it("refuses what the encoding does not allow", () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ traceId: "S/kvNXezTaajzpKdDg5HNg==" }, /traceId: expected 32 hex digits/],
      [{ spanId: "0000000000000000" }, /spanId: all zeros/],
      [{ parentSpanId: "00f067aa" }, /parentSpanId: expected 16 hex digits/],
      [{ startTimeUnixNano: "1.5e18" }, /startTimeUnixNano: expected a 64-bit integer/],
      [{ kind: "SPAN_KIND_CLIENT" }, /kind: expected an enum integer/],
      [{ attributes: [{ key: "a", value: { stringValue: "x", intValue: "1" } }] }, /exactly one/],
      [{ attributes: [{ key: "a", value: { int: 1 } }] }, /unknown AnyValue member int/],
      [
        {
          attributes: [
            { key: "a", value: { boolValue: true } },
            { key: "a", value: { boolValue: false } },
          ],
        },
        /attribute a twice/,
      ],
      [{ name: "" }, /a span has a name/],
    ];
    for (const [over, message] of bad) {
      expect(() => decodeTraceRequest(span(over))).toThrow(message);
    }
  });
});
