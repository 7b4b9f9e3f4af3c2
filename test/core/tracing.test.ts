// Kernel tracing (docs/observability.md, "Traces and the run timeline"): GenAI spans per run, and one trace across a durable halt,
// with the resume in a fresh client and a fresh tracer provider (as in another process).
import { describe, expect, it } from "vitest";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import {
  answerDeclined,
  answerOutput,
  createClient,
  createToolkit,
  defineTool,
  requireApproval,
  type RunResult,
} from "../../src/core";
import { deciderHash, type TracerLike, type TracingOptions } from "../../src/core/tracing";
import { SegmentStarts } from "../../src/core/tracing/segment-start";
import { fakeLlm, type Step } from "../helpers/fake-llm";

const HOUR = 3_600_000;
const SALT = "test-salt";

/** A tracer provider of its own per "process", all spans into one exporter. */
function process_(exporter: InMemorySpanExporter) {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  // The API's Tracer must fit the kernel's structural type (checked by tsc).
  const tracer: TracerLike = provider.getTracer("toolnexus-test");
  return tracer;
}

function clock(start = Date.UTC(2026, 0, 5, 9, 0, 0)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

async function tools(executed: string[]) {
  const refund = requireApproval(
    defineTool({
      name: "refund",
      description: "Refund an order",
      inputSchema: { type: "object", properties: { orderId: { type: "string" } } },
      run: (args: { orderId: string }) => (executed.push("refund"), `refunded ${args.orderId}`),
    }),
    { prompt: "Refund order 42?", approvers: { group: "finance", quorum: 2 } },
  );
  const lookup = defineTool({
    name: "lookup",
    description: "Look an order up",
    run: () => (executed.push("lookup"), "order 42: $120"),
  });
  return createToolkit({ tools: [refund, lookup] });
}

const script: Step[] = [
  {
    toolCalls: [
      { id: "call_refund", name: "refund", args: { orderId: "42" } },
      { id: "call_lookup", name: "lookup", args: {} },
    ],
    usage: { prompt: 11, completion: 3 },
  },
  { content: "Done.", usage: { prompt: 20, completion: 5 } },
];

function client(
  tracer: TracerLike,
  steps: Step[],
  time: { now: () => number },
  extra: Partial<TracingOptions> = {},
) {
  return createClient({
    baseUrl: "https://llm.example/v1",
    style: "openai",
    model: "fake-model",
    fetch: fakeLlm("openai", steps).fetch,
    tracer,
    tracing: {
      agentName: "support",
      conversationId: "th_1",
      decider: { salt: SALT },
      now: time.now,
      ...extra,
    },
  });
}

const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const one = (spans: ReadableSpan[], name: string) => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
};
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

/** Halts on the refund approval in one "process", resumes in another an hour later. */
async function haltThenResume(
  answer: (id: string) => Parameters<ReturnType<typeof client>["runWithAnswer"]>[0]["answer"],
) {
  const exporter = new InMemorySpanExporter();
  const time = clock();
  const executed: string[] = [];
  const first = client(process_(exporter), script.slice(0, 1), time);
  const halted: RunResult = JSON.parse(
    JSON.stringify(await first.run("Refund order 42", { toolkit: await tools(executed) })),
  );
  expect(halted.status).toBe("pending");
  time.advance(HOUR);
  const second = client(process_(exporter), script.slice(1), time);
  const pending = halted.pending as NonNullable<RunResult["pending"]>;
  const done = await second.runWithAnswer({
    ...halted,
    toolkit: await tools(executed),
    pending,
    answer: answer(pending.id),
    decidedBy: "ann@example.com",
    channel: "inbox",
  });
  return { spans: exporter.getFinishedSpans(), halted, done, executed, time };
}

describe("kernel tracing", () => {
  it("one trace across a halt and a resume in a fresh client: run, chat, tools and the wait", async () => {
    const { spans, halted, done, executed } = await haltThenResume((id) => answerOutput(id));
    expect(done.status).toBe("done");
    expect(executed.sort()).toEqual(["lookup", "refund"]);

    // One trace id everywhere.
    const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
    expect(traceIds.size).toBe(1);

    const [run, resumed] = byName(spans, "invoke_agent support");
    if (!run || !resumed) {
      throw new Error("expected two invoke_agent spans");
    }
    expect(parentOf(run)).toBeUndefined(); // the run span is the root
    expect(parentOf(resumed)).toBe(run.spanContext().spanId);
    expect(run.attributes["toolnexus.run.segment"]).toBe("start");
    expect(resumed.attributes["toolnexus.run.segment"]).toBe("resume");
    expect(run.attributes["toolnexus.run.status"]).toBe("pending");
    expect(resumed.attributes["toolnexus.run.status"]).toBe("done");
    expect(run.attributes["gen_ai.operation.name"]).toBe("invoke_agent");
    expect(run.attributes["gen_ai.agent.name"]).toBe("support");
    expect(run.attributes["gen_ai.conversation.id"]).toBe("th_1");
    expect(run.attributes["toolnexus.run.id"]).toBe(halted.runId);

    // The halted result carries the run span's context, in W3C form.
    const { traceId, spanId } = run.spanContext();
    expect(halted.trace?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(halted.trace?.waiting).toEqual({
      [halted.pending?.id as string]: Date.UTC(2026, 0, 5, 9),
    });
    expect(done.trace?.traceparent).toBe(halted.trace?.traceparent);
    expect(done.trace?.waiting).toBeUndefined();

    // Model calls: one per half, children of their segment, with the GenAI attributes.
    const chats = byName(spans, "chat fake-model");
    expect(chats.map(parentOf)).toEqual([run.spanContext().spanId, resumed.spanContext().spanId]);
    expect(chats[0]?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "fake-model",
      "gen_ai.response.model": "fake-model",
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 3,
      "server.address": "llm.example",
    });
    expect(chats[1]?.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    expect(chats[0]?.attributes["gen_ai.input.messages"]).toBeUndefined(); // no content by default

    // Tools: lookup ran in the first half; refund only after the approval, in the second.
    const lookup = one(spans, "execute_tool lookup");
    expect(parentOf(lookup)).toBe(run.spanContext().spanId);
    expect(lookup.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup",
      "gen_ai.tool.call.id": "call_lookup",
    });
    const refund = one(spans, "execute_tool refund");
    expect(parentOf(refund)).toBe(resumed.spanContext().spanId);
    expect(refund.attributes["gen_ai.tool.call.id"]).toBe("call_refund");

    // The wait: a child of the run span, from the halt to the answer an hour later.
    const wait = one(spans, "await_decision refund");
    expect(parentOf(wait)).toBe(run.spanContext().spanId);
    expect(ms(wait.startTime)).toBe(Date.UTC(2026, 0, 5, 9));
    expect(ms(wait.endTime)).toBe(Date.UTC(2026, 0, 5, 10));
    expect(wait.attributes).toMatchObject({
      "toolnexus.request.id": halted.pending?.id,
      "toolnexus.request.kind": "approval",
      "toolnexus.request.group": "finance",
      "toolnexus.request.quorum": 2,
      "toolnexus.request.outcome": "approved",
      "toolnexus.request.channel": "inbox",
      "toolnexus.request.wait_ms": HOUR,
      "toolnexus.request.decided_by_hash": deciderHash(SALT, "ann@example.com"),
      "gen_ai.tool.call.id": "call_refund",
    });
    expect(wait.attributes["toolnexus.request.decided_by"]).toBeUndefined();
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain("ann@example.com");
  });

  it("a declined call never executes: no execute_tool span, the wait says declined", async () => {
    const { spans, executed } = await haltThenResume((id) => answerDeclined(id, "not this one"));
    expect(executed).toEqual(["lookup"]);
    expect(byName(spans, "execute_tool refund")).toHaveLength(0);
    expect(one(spans, "execute_tool lookup")).toBeTruthy();
    const wait = one(spans, "await_decision refund");
    expect(wait.attributes["toolnexus.request.outcome"]).toBe("declined");
    expect(wait.attributes["toolnexus.request.reason"]).toBeUndefined(); // an approver's words are content
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it("a tool the model made up never names a span: it runs nothing, its span has a fixed name (issue 37)", async () => {
    const exporter = new InMemorySpanExporter();
    const made = "evil<script>alert(1)</script>";
    const c = client(
      process_(exporter),
      [{ toolCalls: [{ id: "call_x", name: made, args: {} }] }, { content: "Sorry." }],
      clock(),
    );
    await c.run("hi", { toolkit: await tools([]) });
    const spans = exporter.getFinishedSpans();
    const unknown = one(spans, "execute_tool unknown_tool");
    expect(unknown.attributes["error.type"]).toBe("unknown_tool");
    expect(unknown.attributes["gen_ai.tool.name"]).toBeUndefined();
    expect(spans.some((s) => s.name.includes("evil"))).toBe(false);
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain("evil");
  });

  it("an expiry is its own outcome", async () => {
    const { spans } = await haltThenResume((id) => answerDeclined(id, "expired"));
    expect(one(spans, "await_decision refund").attributes["toolnexus.request.outcome"]).toBe(
      "expired",
    );
  });

  it("an in-process waitFor is a wait span inside the one segment; a decline still never executes", async () => {
    const exporter = new InMemorySpanExporter();
    const time = clock();
    const executed: string[] = [];
    const c = createClient({
      baseUrl: "https://llm.example/v1",
      style: "openai",
      model: "fake-model",
      fetch: fakeLlm("openai", script).fetch,
      tracer: process_(exporter),
      tracing: { decider: "clear", recordContent: true, now: time.now },
      waitFor: (request) => {
        time.advance(5_000);
        return answerDeclined(request.id, "policy: over limit");
      },
    });
    const result = await c.run("Refund order 42", { toolkit: await tools(executed) });
    expect(result.status).toBe("done");
    const spans = exporter.getFinishedSpans();
    const run = one(spans, "invoke_agent");
    const wait = one(spans, "await_decision refund");
    expect(parentOf(wait)).toBe(run.spanContext().spanId);
    expect(ms(wait.endTime) - ms(wait.startTime)).toBe(5_000);
    expect(wait.attributes["toolnexus.request.outcome"]).toBe("declined");
    expect(wait.attributes["toolnexus.request.reason"]).toBe("policy: over limit");
    expect(byName(spans, "execute_tool refund")).toHaveLength(0);
    // recordContent: messages and tool arguments/results are on the spans.
    const chat = byName(spans, "chat fake-model")[0];
    expect(String(chat?.attributes["gen_ai.input.messages"])).toContain("Refund order 42");
    expect(one(spans, "execute_tool lookup").attributes["gen_ai.tool.call.result"]).toBe(
      "order 42: $120",
    );
  });

  it("a gate's policy refusal is a policy wait and no execution", async () => {
    const exporter = new InMemorySpanExporter();
    const executed: string[] = [];
    const refund = requireApproval(
      defineTool({ name: "refund", description: "r", run: () => (executed.push("refund"), "ok") }),
      { policy: (_args, request) => answerDeclined(request.id, "policy: amount over threshold") },
    );
    const c = client(
      process_(exporter),
      [{ toolCalls: [{ id: "c1", name: "refund", args: {} }] }, { content: "No." }],
      clock(),
    );
    await c.run("Refund", { toolkit: await createToolkit({ tools: [refund] }) });
    const spans = exporter.getFinishedSpans();
    expect(executed).toEqual([]);
    expect(byName(spans, "execute_tool refund")).toHaveLength(0);
    const wait = one(spans, "await_decision refund");
    expect(wait.attributes).toMatchObject({
      "toolnexus.request.channel": "policy",
      "toolnexus.request.outcome": "declined",
    });
  });

  it("a failing model call marks the chat and the run with error.type", async () => {
    const exporter = new InMemorySpanExporter();
    const c = createClient({
      baseUrl: "https://llm.example/v1",
      style: "openai",
      model: "fake-model",
      retries: 0,
      fetch: fakeLlm("openai", [{ status: 400, body: "{}" }]).fetch,
      tracer: process_(exporter),
    });
    await expect(c.run("hi", { toolkit: await createToolkit({}) })).rejects.toThrow();
    const spans = exporter.getFinishedSpans();
    expect(one(spans, "chat fake-model").attributes["error.type"]).toBe("400");
    expect(one(spans, "chat fake-model").status.code).toBe(2);
    expect(one(spans, "invoke_agent").status.code).toBe(2);
  });

  it("no tracer: no trace on the result; a no-op tracer: no spans and no trace", async () => {
    const toolkit = await createToolkit({});
    const base = { baseUrl: "https://llm.example/v1", style: "openai" as const, model: "m" };
    const plain = await createClient({
      ...base,
      fetch: fakeLlm("openai", [{ content: "hi" }]).fetch,
    }).run("x", { toolkit });
    expect(plain.trace).toBeUndefined();
    const noop = await createClient({
      ...base,
      fetch: fakeLlm("openai", [{ content: "hi" }]).fetch,
      tracer: trace.getTracer("noop"), // no provider registered: the API's no-op tracer
    }).run("x", { toolkit });
    expect(noop.text).toBe("hi");
    expect(noop.trace).toBeUndefined();
  });

  it("a sampled-out run keeps its context for the resume but records nothing", async () => {
    // A carried traceparent whose sampled flag is off: the SDK's parent-based sampler drops it.
    const exporter = new InMemorySpanExporter();
    const executed: string[] = [];
    const first = client(process_(exporter), script.slice(0, 1), clock());
    const halted = await first.run("Refund order 42", { toolkit: await tools(executed) });
    exporter.reset();
    const unsampled = {
      ...halted.trace,
      traceparent: halted.trace?.traceparent.replace(/-01$/, "-00") as string,
    };
    const second = client(process_(exporter), script.slice(1), clock());
    const done = await second.runWithAnswer({
      ...halted,
      trace: unsampled,
      toolkit: await tools(executed),
      pending: halted.pending as NonNullable<RunResult["pending"]>,
      answer: answerOutput(halted.pending?.id as string),
    });
    expect(done.status).toBe("done");
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    expect(done.trace?.traceparent).toBe(unsampled.traceparent);
  });

  it("a client's run spans start from attributes built once, per segment kind and model", async () => {
    const settings = {
      tracer: trace.getTracer("noop"),
      options: { agentName: "support", conversationId: "th_1" },
      provider: "openai",
    };
    const starts = new SegmentStarts(settings);
    expect(starts.name).toBe("invoke_agent support");
    const start = starts.attributes("m", "start");
    expect(start).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "support",
      "gen_ai.conversation.id": "th_1",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "m",
      "toolnexus.run.segment": "start",
    });
    expect(Object.isFrozen(start)).toBe(true);
    expect(starts.attributes("m", "start")).toBe(start); // not rebuilt per run
    expect(starts.attributes("m", "resume")["toolnexus.run.segment"]).toBe("resume");
    expect(starts.attributes("m2", "start")["gen_ai.request.model"]).toBe("m2");
    expect(new SegmentStarts({ ...settings, options: {} }).name).toBe("invoke_agent");
  });
});
