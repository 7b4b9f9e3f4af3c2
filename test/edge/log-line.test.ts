// Structured log lines (issue 29 §5): one JSON object per line with the ids that are known.
import { describe, expect, it } from "vitest";
import { logLine, MAX_FIELD_CHARS } from "../../src/edge/log-line";

const T = Date.UTC(2026, 0, 5, 9);
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

describe("logLine", () => {
  it("one JSON object on one line, with the ids and the trace id from a traceparent", () => {
    const line = logLine(
      {
        level: "error",
        code: "driver_failed",
        message: "boom\nsecond line",
        runId: "th_a.run_b",
        threadId: "th_a",
        requestId: "apr_1",
        traceparent: `00-${TRACE}-00f067aa0ba902b7-01`,
        source: "driver",
      },
      T,
    );
    expect(line).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({
      ts: "2026-01-05T09:00:00.000Z",
      level: "error",
      code: "driver_failed",
      message: "boom\nsecond line",
      source: "driver",
      runId: "th_a.run_b",
      threadId: "th_a",
      requestId: "apr_1",
      traceId: TRACE,
    });
  });

  it("omits unknown ids, refuses a malformed trace id, keeps its own keys over extras, caps text", () => {
    const parsed = JSON.parse(
      logLine({
        level: "warn",
        code: "x",
        message: "m".repeat(MAX_FIELD_CHARS + 10),
        traceId: "not-hex",
        extra: { level: "debug", attempt: 2, cycle: undefined },
      }),
    );
    expect(parsed.level).toBe("warn");
    expect(parsed.attempt).toBe(2);
    expect(parsed.runId).toBeUndefined();
    expect(parsed.traceId).toBeUndefined();
    expect(parsed.message).toHaveLength(MAX_FIELD_CHARS + 1);
  });

  it("an extra that cannot be serialized is dropped, not thrown", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const parsed = JSON.parse(
      logLine({ level: "info", code: "c", message: "m", extra: { cyclic, n: 10n } }),
    );
    expect(parsed).toMatchObject({ code: "c", message: "m" });
    expect(parsed.cyclic).toBeUndefined();
  });
});
