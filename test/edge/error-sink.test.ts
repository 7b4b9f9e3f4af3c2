// The error sink (issue 29 §5): the default writes one JSON object per line with the ids that
// are known; a custom sink still gets the typed ErrorInfo; a throwing sink never escapes.
import { afterEach, describe, expect, it, vi } from "vitest";
import { errorCode, errorSink, logErrors, type ErrorInfo } from "../../src/edge/error-sink";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

afterEach(() => vi.restoreAllMocks());

function captured(kind: "warn" | "error") {
  const lines: unknown[][] = [];
  vi.spyOn(console, kind).mockImplementation((...args: unknown[]) => {
    lines.push(args);
  });
  return lines;
}

describe("the default error sink", () => {
  it("a failure that ended a run: one error line of JSON with every known id and the stack", () => {
    const errors = captured("error");
    const report = errorSink();
    report(new Error("model said no\nreally"), {
      source: "driver",
      runId: "th_a.run_b",
      threadId: "th_a",
      requestId: "apr_1",
      traceId: TRACE,
      recoverable: false,
    });
    expect(errors).toHaveLength(1);
    const [args] = errors;
    expect(args).toHaveLength(1);
    const text = args![0] as string;
    expect(text).not.toContain("\n");
    const line = JSON.parse(text);
    expect(line).toMatchObject({
      level: "error",
      code: "driver_failed",
      message: "model said no\nreally",
      source: "driver",
      runId: "th_a.run_b",
      threadId: "th_a",
      requestId: "apr_1",
      traceId: TRACE,
      error: "Error",
    });
    expect(line.stack).toContain("model said no");
    expect(Number.isNaN(Date.parse(line.ts))).toBe(false);
  });

  it("a retried failure: a warn line without a stack, the cause's message, no absent ids", () => {
    const warnings = captured("warn");
    logErrors(new Error("collector down", { cause: new Error("503") }), {
      source: "telemetry",
      recoverable: true,
    });
    expect(warnings).toHaveLength(1);
    const line = JSON.parse(warnings[0]![0] as string);
    expect(line).toMatchObject({
      level: "warn",
      code: "telemetry_retry",
      message: "collector down",
      cause: "503",
      source: "telemetry",
    });
    for (const absent of ["stack", "runId", "threadId", "requestId", "traceId"]) {
      expect(line).not.toHaveProperty(absent);
    }
  });

  it("a non-Error is reported as an Error with its message", () => {
    const errors = captured("error");
    errorSink()("plain string", { source: "http", recoverable: false });
    expect(JSON.parse(errors[0]![0] as string)).toMatchObject({
      message: "plain string",
      code: "http_failed",
    });
  });

  it("a failure that ended a run with a code of its own logs that code (value_too_large, not driver_failed)", () => {
    const errors = captured("error");
    errorSink()(new Error("the tool output of call_1 is 40 MiB; the limit is 32 MiB"), {
      source: "driver",
      runId: "th_a.run_b",
      code: "value_too_large",
      recoverable: false,
    });
    expect(JSON.parse(errors[0]![0] as string)).toMatchObject({
      level: "error",
      code: "value_too_large",
      source: "driver",
      runId: "th_a.run_b",
    });
  });

  it("codes name the source and whether it retries", () => {
    expect(errorCode({ source: "notify", recoverable: true })).toBe("notify_retry");
    expect(errorCode({ source: "queue", recoverable: false })).toBe("queue_failed");
  });
});

describe("a custom sink", () => {
  it("receives the Error and the typed ErrorInfo unchanged, and nothing is logged", () => {
    const errors = captured("error");
    const seen: Array<[Error, ErrorInfo]> = [];
    const info: ErrorInfo = {
      source: "telemetry",
      runId: "th_a.run_b",
      traceId: TRACE,
      recoverable: true,
    };
    errorSink((error, got) => seen.push([error, got]))(new Error("x"), info);
    expect(seen).toHaveLength(1);
    expect(seen[0]![0].message).toBe("x");
    expect(seen[0]![1]).toEqual(info);
    expect(errors).toHaveLength(0);
  });

  it("a sink that throws is logged once and does not throw into the reporter", () => {
    const errors = captured("error");
    const report = errorSink(() => {
      throw new Error("sink broke");
    });
    expect(() => report(new Error("x"), { source: "driver", recoverable: true })).not.toThrow();
    expect(errors).toHaveLength(1);
  });
});
