// Kernel tracing when the run span does not record (docs/observability.md, "Traces and the run timeline").
// A no-op tracer (non-recording span, invalid context: the API's `trace.getTracer()` without
// a provider) leaves nothing to record or propagate: the run costs one `startSpan`, no child
// span, no attribute object, no wrapper, no clock read per call. A sampled-out run span (not
// recording, but a VALID context) still hands its context on, so the resumed half, in
// another process whose sampler says yes, continues the same trace.
import { describe, expect, it } from "vitest";
import { trace, type Context } from "@opentelemetry/api";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type Sampler,
} from "@opentelemetry/sdk-trace-base";
import {
  answerOutput,
  createClient,
  createToolkit,
  defineTool,
  requireApproval,
  type RunResult,
} from "../../src/core";
import {
  runTracing,
  type ContextLike,
  type SpanContextLike,
  type SpanLike,
  type SpanOptionsLike,
  type TracerLike,
  type TracingOptions,
} from "../../src/core/tracing";
import type { LoopConfig } from "../../src/core/loop/run-loop";
import { fakeLlm, type Step } from "../helpers/fake-llm";

const INVALID: SpanContextLike = { traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 };
/** A context a sampler said no to: valid ids, the sampled flag off. */
const SAMPLED_OUT: SpanContextLike = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceFlags: 0,
};

/** A tracer whose every span is non-recording with `context`; it counts every call made on it. */
function countingTracer(context: SpanContextLike) {
  const calls = {
    startSpan: [] as Array<{ name: string; options?: SpanOptionsLike; parent?: ContextLike }>,
    setAttribute: 0,
    setAttributes: 0,
    setStatus: 0,
    recordException: 0,
    end: 0,
  };
  const tracer: TracerLike = {
    startSpan(name, options, parent) {
      calls.startSpan.push({
        name,
        ...(options ? { options } : {}),
        ...(parent ? { parent } : {}),
      });
      const span: SpanLike = {
        spanContext: () => context,
        setAttribute: () => {
          calls.setAttribute += 1;
          return span;
        },
        setAttributes: () => {
          calls.setAttributes += 1;
          return span;
        },
        setStatus: () => {
          calls.setStatus += 1;
          return span;
        },
        recordException: () => {
          calls.recordException += 1;
        },
        end: () => {
          calls.end += 1;
        },
        isRecording: () => false,
      };
      return span;
    },
  };
  return { tracer, calls };
}

/** Counts how often the tracing clock is read: a recorded run reads it around every call. */
function countingClock() {
  const clock = {
    reads: 0,
    now: () => {
      clock.reads += 1;
      return Date.UTC(2026, 0, 5, 9);
    },
  };
  return clock;
}

const lookup = defineTool({
  name: "lookup",
  description: "Look an order up",
  run: () => "order 42: $120",
});
const weather = defineTool({
  name: "weather",
  description: "The weather",
  run: () => "sunny",
});
const refund = requireApproval(
  defineTool({
    name: "refund",
    description: "Refund an order",
    inputSchema: { type: "object", properties: { orderId: { type: "string" } } },
    run: (args: { orderId: string }) => `refunded ${args.orderId}`,
  }),
  { prompt: "Refund order 42?", approvers: { group: "finance" } },
);

/** Two turns, two tools in the first: what a recorded run makes five spans of. */
const twoTools: Step[] = [
  {
    toolCalls: [
      { id: "call_lookup", name: "lookup", args: {} },
      { id: "call_weather", name: "weather", args: {} },
    ],
  },
  { content: "Done." },
];
const refundThenDone: Step[] = [
  { toolCalls: [{ id: "call_refund", name: "refund", args: { orderId: "42" } }] },
  { content: "Refunded." },
];

function client(tracer: TracerLike, steps: Step[], tracing: Partial<TracingOptions> = {}) {
  return createClient({
    baseUrl: "https://llm.example/v1",
    style: "openai",
    model: "fake-model",
    fetch: fakeLlm("openai", steps).fetch,
    tracer,
    tracing: {
      agentName: "support",
      conversationId: "th_1",
      // Everything that would cost something on a recorded span is asked for.
      recordContent: true,
      decider: { salt: "s" },
      ...tracing,
    },
  });
}

/** The span context of the parent a `startSpan` call was given, read with the API. */
const parentContextOf = (parent: ContextLike | undefined) =>
  parent ? trace.getSpanContext(parent as unknown as Context) : undefined;

/** A tracer provider of its own ("a process") with `sampler`, into `exporter`. */
const sdkTracer = (exporter: InMemorySpanExporter, sampler: Sampler): TracerLike =>
  new BasicTracerProvider({
    sampler,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  }).getTracer("toolnexus-test");

describe("kernel tracing: a run span that does not record", () => {
  it("a no-op tracer: one startSpan per run, nothing else asked of it, nothing computed", async () => {
    const { tracer, calls } = countingTracer(INVALID);
    const clock = countingClock();
    const c = client(tracer, [...twoTools, ...twoTools], { now: clock.now });
    const toolkit = await createToolkit({ tools: [lookup, weather] });
    const first = await c.run("Look it up", { toolkit });
    const second = await c.run("Again", { toolkit });
    expect([first.text, second.text]).toEqual(["Done.", "Done."]);
    expect(first.toolCalls.map((t) => t.output)).toEqual(["order 42: $120", "sunny"]);

    // The run spans only: no chat, no execute_tool; each ended once, nothing set on them.
    expect(calls.startSpan.map((s) => s.name)).toEqual([
      "invoke_agent support",
      "invoke_agent support",
    ]);
    expect(calls.end).toBe(2);
    expect([
      calls.setAttribute,
      calls.setAttributes,
      calls.setStatus,
      calls.recordException,
    ]).toEqual([0, 0, 0, 0]);
    // The start attributes are the client's, built once: the same object for both runs.
    const [a, b] = calls.startSpan.map((s) => s.options?.attributes);
    expect(a).toBeDefined();
    expect(b).toBe(a);
    // No explicit parent (the caller's active context is the tracer's to read).
    expect(calls.startSpan.map((s) => s.parent)).toEqual([undefined, undefined]);
    // The clock is read once per run (the run span's start), never around a call.
    expect(clock.reads).toBe(2);
    // Nothing to propagate: no trace on the result.
    expect(first.trace).toBeUndefined();
    expect(second.trace).toBeUndefined();
  });

  it("a no-op segment wraps nothing: the loop gets the plain config and toolkit", async () => {
    const { tracer, calls } = countingTracer(INVALID);
    const tracing = runTracing({ tracer });
    const plain = {
      model: "m",
      callModel: async () => {
        throw new Error("not called");
      },
      maxTurns: 1,
      hooks: {},
      metric: () => undefined,
    } as unknown as LoopConfig;
    const toolkit = await createToolkit({ tools: [lookup] });
    const segment = tracing?.begin(plain, undefined);
    expect(segment?.config).toBe(plain);
    expect(segment?.toolkit(toolkit)).toBe(toolkit);
    expect(calls.startSpan).toHaveLength(1);
  });

  it("a no-op tracer over a halt and a resume: one span per segment, no wait span, no hash", async () => {
    const { tracer, calls } = countingTracer(INVALID);
    const clock = countingClock();
    const halted: RunResult = JSON.parse(
      JSON.stringify(
        await client(tracer, refundThenDone.slice(0, 1), { now: clock.now }).run("Refund", {
          toolkit: await createToolkit({ tools: [refund] }),
        }),
      ),
    );
    expect(halted.status).toBe("pending");
    expect(halted.trace).toBeUndefined();
    const pending = halted.pending as NonNullable<RunResult["pending"]>;
    const done = await client(tracer, refundThenDone.slice(1), { now: clock.now }).runWithAnswer({
      ...halted,
      toolkit: await createToolkit({ tools: [refund] }),
      pending,
      answer: answerOutput(pending.id),
      decidedBy: "ann@example.com",
      channel: "inbox",
    });
    expect(done.status).toBe("done");
    expect(done.text).toBe("Refunded.");
    expect(calls.startSpan.map((s) => s.name)).toEqual([
      "invoke_agent support",
      "invoke_agent support",
    ]);
    expect(calls.startSpan[1]?.options?.attributes?.["toolnexus.run.segment"]).toBe("resume");
    expect(calls.end).toBe(2);
    expect(clock.reads).toBe(2); // no await_decision closed (it would read the clock)
    expect(done.trace).toBeUndefined();
  });

  it("the API's own no-op tracer (no provider registered): one startSpan per run", async () => {
    const api = trace.getTracer("noop");
    const started: SpanLike[] = [];
    const tracer: TracerLike = {
      startSpan(name, options, parent) {
        const span = api.startSpan(name, options, parent as unknown as Context | undefined);
        started.push(span);
        return span;
      },
    };
    const result = await client(tracer, twoTools).run("Look it up", {
      toolkit: await createToolkit({ tools: [lookup, weather] }),
    });
    expect(result.text).toBe("Done.");
    expect(started).toHaveLength(1);
    expect(started[0]?.isRecording()).toBe(false);
    expect(result.trace).toBeUndefined();
  });

  it("sampled out with a valid context: no child span, the context carried to the resume", async () => {
    const first = countingTracer(SAMPLED_OUT);
    const halted: RunResult = JSON.parse(
      JSON.stringify(
        await client(first.tracer, refundThenDone.slice(0, 1)).run("Refund", {
          toolkit: await createToolkit({ tools: [refund] }),
        }),
      ),
    );
    expect(halted.status).toBe("pending");
    expect(first.calls.startSpan).toHaveLength(1);
    expect(halted.trace?.traceparent).toBe(`00-${SAMPLED_OUT.traceId}-${SAMPLED_OUT.spanId}-00`);

    // The resumed half (sampled out as well) starts its span under the carried context.
    const second = countingTracer({ ...SAMPLED_OUT, spanId: "1111111111111111" });
    const pending = halted.pending as NonNullable<RunResult["pending"]>;
    const done = await client(second.tracer, refundThenDone.slice(1)).runWithAnswer({
      ...halted,
      toolkit: await createToolkit({ tools: [refund] }),
      pending,
      answer: answerOutput(pending.id),
    });
    expect(done.status).toBe("done");
    expect(second.calls.startSpan).toHaveLength(1);
    expect(parentContextOf(second.calls.startSpan[0]?.parent)).toMatchObject({
      traceId: SAMPLED_OUT.traceId,
      spanId: SAMPLED_OUT.spanId,
      traceFlags: 0,
      isRemote: true,
    });
    // The run's context, not the resumed segment's: every later half hangs off the run span.
    expect(done.trace?.traceparent).toBe(halted.trace?.traceparent);
  });

  it("sampled out by the SDK, resumed where the sampler says yes: one trace id throughout", async () => {
    const exporter = new InMemorySpanExporter();
    const halted: RunResult = JSON.parse(
      JSON.stringify(
        await client(sdkTracer(exporter, new AlwaysOffSampler()), refundThenDone.slice(0, 1)).run(
          "Refund",
          { toolkit: await createToolkit({ tools: [refund] }) },
        ),
      ),
    );
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-00$/.exec(String(halted.trace?.traceparent));
    expect(match).not.toBeNull();
    const [, traceId, runSpanId] = match as unknown as [string, string, string];

    const pending = halted.pending as NonNullable<RunResult["pending"]>;
    const done = await client(
      sdkTracer(exporter, new AlwaysOnSampler()),
      refundThenDone.slice(1),
    ).runWithAnswer({
      ...halted,
      toolkit: await createToolkit({ tools: [refund] }),
      pending,
      answer: answerOutput(pending.id),
      decidedBy: "ann@example.com",
    });
    expect(done.status).toBe("done");
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual([
      "await_decision refund",
      "chat fake-model",
      "execute_tool refund",
      "invoke_agent support",
    ]);
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
    const byName = (name: string) => spans.find((s) => s.name === name);
    const segment = byName("invoke_agent support");
    // The resumed segment and the wait hang off the sampled-out run span, by its id.
    expect(segment?.parentSpanContext?.spanId).toBe(runSpanId);
    expect(byName("await_decision refund")?.parentSpanContext?.spanId).toBe(runSpanId);
    expect(byName("chat fake-model")?.parentSpanContext?.spanId).toBe(
      segment?.spanContext().spanId,
    );
    expect(done.trace?.traceparent).toBe(halted.trace?.traceparent);
  });
});
