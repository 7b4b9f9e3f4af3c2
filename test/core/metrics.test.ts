import { describe, expect, test } from "vitest";
import { HISTOGRAM_BUCKETS, MetricsRegistry } from "../../src/core/metrics";

const FAMILIES: Array<[string, "counter" | "histogram"]> = [
  ["toolnexus_llm_requests_total", "counter"],
  ["toolnexus_llm_tokens_total", "counter"],
  ["toolnexus_llm_request_duration_seconds", "histogram"],
  ["toolnexus_tool_calls_total", "counter"],
  ["toolnexus_tool_duration_seconds", "histogram"],
  ["toolnexus_run_errors_total", "counter"],
];

// A small checker for the text exposition format: comment lines, or
// `name{label="escaped",…} value` where value is what Go's ParseFloat accepts.
const LABEL = String.raw`[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"`;
const SAMPLE = new RegExp(
  String.raw`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{${LABEL}(?:,${LABEL})*\})? ([+-]?Inf|NaN|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)$`,
);
const COMMENT = /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/;

function assertParses(text: string): void {
  expect(text.endsWith("\n")).toBe(true);
  for (const line of text.slice(0, -1).split("\n")) {
    expect(
      COMMENT.test(line) || SAMPLE.test(line),
      `unparsable line: ${JSON.stringify(line)}`,
    ).toBe(true);
  }
}

/** The sample lines for one metric name (exact, so `_bucket` is not matched by the base name). */
function samples(text: string, name: string): Array<{ labels: string; value: number }> {
  return text
    .split("\n")
    .map((line) => SAMPLE.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && m[1] === name)
    .map((m) => ({ labels: m[2] ?? "", value: Number(m[3]?.replace("Inf", "Infinity")) }));
}

function value(text: string, name: string, labels: string): number | undefined {
  return samples(text, name).find((s) => s.labels === labels)?.value;
}

describe("MetricsRegistry", () => {
  test("an empty registry still prints every HELP and TYPE line", () => {
    const text = new MetricsRegistry().render();
    for (const [name, type] of FAMILIES) {
      expect(text).toMatch(new RegExp(`^# HELP ${name} \\S`, "m"));
      expect(text).toContain(`# TYPE ${name} ${type}\n`);
    }
    expect(text.trim().split("\n")).toHaveLength(FAMILIES.length * 2);
    assertParses(text);
  });

  test("counts LLM requests, tokens, tool calls and run errors", () => {
    const m = new MetricsRegistry();
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
    m.record({ type: "llm_request", model: "gpt", status: "ok", durationMs: 100, usage });
    m.record({ type: "llm_request", model: "gpt", status: "ok", durationMs: 200, usage });
    m.record({ type: "llm_request", model: "gpt", status: "429", durationMs: 5 });
    m.record({
      type: "tool_call",
      tool: "pay",
      source: "native",
      isError: false,
      pending: false,
      durationMs: 1,
    });
    m.record({
      type: "tool_call",
      tool: "pay",
      source: "native",
      isError: true,
      pending: false,
      durationMs: 1,
    });
    // A suspended call carries isError: true on its result but is not a failure.
    m.record({
      type: "tool_call",
      tool: "pay",
      source: "native",
      isError: true,
      pending: true,
      durationMs: 1,
    });
    m.record({ type: "run_error", model: "gpt", error: "boom" });
    const text = m.render();
    assertParses(text);

    expect(value(text, "toolnexus_llm_requests_total", '{model="gpt",status="ok"}')).toBe(2);
    expect(value(text, "toolnexus_llm_requests_total", '{model="gpt",status="429"}')).toBe(1);
    expect(value(text, "toolnexus_llm_tokens_total", '{type="prompt"}')).toBe(20);
    expect(value(text, "toolnexus_llm_tokens_total", '{type="completion"}')).toBe(10);
    expect(
      value(text, "toolnexus_tool_calls_total", '{tool="pay",source="native",is_error="false"}'),
    ).toBe(2);
    expect(
      value(text, "toolnexus_tool_calls_total", '{tool="pay",source="native",is_error="true"}'),
    ).toBe(1);
    expect(value(text, "toolnexus_run_errors_total", '{model="gpt"}')).toBe(1);
    expect(text).not.toContain("boom");
  });

  test("histograms are cumulative, +Inf equals count, sum is in seconds", () => {
    const m = new MetricsRegistry();
    for (const ms of [10, 50, 300, 2_000, 120_000]) {
      m.record({ type: "llm_request", model: "m", status: "ok", durationMs: ms });
    }
    const text = m.render();
    assertParses(text);
    const buckets = samples(text, "toolnexus_llm_request_duration_seconds_bucket");
    expect(buckets.map((b) => b.labels.match(/le="([^"]+)"/)?.[1])).toEqual([
      ...HISTOGRAM_BUCKETS.map(String),
      "+Inf",
    ]);
    // 0.01 and 0.05 fall in le=0.05 (upper bounds are inclusive); 120s only in +Inf.
    expect(buckets.map((b) => b.value)).toEqual([2, 2, 2, 3, 3, 4, 4, 4, 4, 4, 5]);
    for (let i = 1; i < buckets.length; i++) {
      expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    }
    expect(value(text, "toolnexus_llm_request_duration_seconds_count", '{model="m"}')).toBe(5);
    expect(value(text, "toolnexus_llm_request_duration_seconds_sum", '{model="m"}')).toBeCloseTo(
      122.36,
      10,
    );
  });

  test("tool durations get their own histogram by tool", () => {
    const m = new MetricsRegistry();
    m.record({
      type: "tool_call",
      tool: "a",
      source: "mcp:x",
      isError: false,
      pending: false,
      durationMs: 700,
    });
    const text = m.render();
    expect(value(text, "toolnexus_tool_duration_seconds_bucket", '{tool="a",le="0.5"}')).toBe(0);
    expect(value(text, "toolnexus_tool_duration_seconds_bucket", '{tool="a",le="1"}')).toBe(1);
    expect(value(text, "toolnexus_tool_duration_seconds_sum", '{tool="a"}')).toBe(0.7);
  });

  test("series are sorted by label values, regardless of insertion order", () => {
    const render = (models: string[]) => {
      const m = new MetricsRegistry();
      for (const model of models) {
        m.record({ type: "run_error", model, error: "x" });
      }
      return m.render();
    };
    const text = render(["b", "a", "B", "ab"]);
    expect(samples(text, "toolnexus_run_errors_total").map((s) => s.labels)).toEqual([
      '{model="B"}',
      '{model="a"}',
      '{model="ab"}',
      '{model="b"}',
    ]);
    expect(render(["ab", "B", "b", "a"])).toBe(text);
  });

  test("label values are escaped; unicode passes through", () => {
    const m = new MetricsRegistry();
    m.record({ type: "run_error", model: 'say "hi"\nback\\slash', error: "x" });
    m.record({ type: "run_error", model: "モデル-é", error: "x" });
    const text = m.render();
    assertParses(text);
    expect(text).toContain(
      String.raw`toolnexus_run_errors_total{model="say \"hi\"\nback\\slash"} 1`,
    );
    expect(text).toContain('toolnexus_run_errors_total{model="モデル-é"} 1');
  });

  test("bad durations and token counts never produce unparsable numbers", () => {
    const m = new MetricsRegistry();
    const usage = { promptTokens: Number.NaN, completionTokens: -3, totalTokens: 0 };
    m.record({ type: "llm_request", model: "m", status: "error", durationMs: Number.NaN, usage });
    m.record({
      type: "tool_call",
      tool: "t",
      source: "s",
      isError: false,
      pending: false,
      durationMs: -5,
    });
    const text = m.render();
    assertParses(text);
    expect(value(text, "toolnexus_llm_tokens_total", '{type="prompt"}')).toBe(0);
    expect(value(text, "toolnexus_llm_request_duration_seconds_sum", '{model="m"}')).toBe(0);
    expect(value(text, "toolnexus_tool_duration_seconds_bucket", '{tool="t",le="0.05"}')).toBe(1);
  });
  test("events are counted in batches, yet every render sees every event recorded before it", () => {
    const m = new MetricsRegistry();
    const name = "toolnexus_llm_requests_total";
    for (let n = 1; n <= 300; n++) {
      m.record({ type: "llm_request", model: "m", status: "ok", durationMs: 1 });
      // Render at a few points, including right at and right after batch boundaries.
      if ([1, 63, 64, 65, 128, 300].includes(n)) {
        expect(value(m.render(), name, '{model="m",status="ok"}')).toBe(n);
      }
    }
    const text = m.render();
    expect(value(text, "toolnexus_llm_request_duration_seconds_count", '{model="m"}')).toBe(300);
    expect(value(text, "toolnexus_llm_request_duration_seconds_sum", '{model="m"}')).toBeCloseTo(
      0.3,
    );
  });

  test("an unknown event is refused when recorded, not later", () => {
    const m = new MetricsRegistry();
    expect(() => m.record({ type: "nope" } as never)).toThrow(TypeError);
    m.record({ type: "run_error", model: "m", error: "x" });
    expect(value(m.render(), "toolnexus_run_errors_total", '{model="m"}')).toBe(1);
  });
});
