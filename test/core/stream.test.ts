/**
 * `client.stream()`, `ask({ onText })` and the `streaming` option on both wire
 * styles: the same loop, hooks, tools, suspension rule and metrics as `run()`, with
 * text arriving as deltas; cut streams and their retries; the in-process refusal.
 */
import { describe, expect, it } from "vitest";
import {
  ProviderError,
  RunAbortedError,
  StreamInterruptedError,
  answerDeclined,
  answerOutput,
  createClient,
  createInProcessClient,
  createToolkit,
  defineTool,
  pending,
  type ClientOptions,
  type MetricEvent,
  type RunEvent,
  type RunResult,
} from "../../src/core";
import { assertBalanced, render, type Style } from "../helpers/fake-llm";
import {
  fakeStreamLlm,
  slices,
  streamFor,
  type SseStep,
  type StreamScript,
} from "../helpers/fake-sse";

const STYLES: Style[] = ["openai", "anthropic"];

function setup(style: Style, steps: SseStep[], extra: Partial<ClientOptions> = {}) {
  const llm = fakeStreamLlm(steps);
  const waits: number[] = [];
  const client = createClient({
    baseUrl: "https://llm.test/v1",
    style,
    model: "stream-model",
    fetch: llm.fetch,
    retryBaseMs: 10,
    sleep: async (ms) => void waits.push(ms),
    ...extra,
  });
  return { llm, client, waits };
}

async function toolkitWith(log: Array<{ name: string; args: unknown; answer?: unknown }> = []) {
  return createToolkit({
    tools: [
      defineTool({
        name: "get_weather",
        description: "Weather for a city",
        inputSchema: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
        },
        run: (args: any) => (log.push({ name: "get_weather", args }), `sunny in ${args.city}`),
      }),
      defineTool({
        name: "get_time",
        description: "Time in a zone",
        inputSchema: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] },
        run: (args: any) => (log.push({ name: "get_time", args }), `noon in ${args.tz}`),
      }),
      defineTool({
        name: "refund",
        description: "Refund (needs approval)",
        inputSchema: { type: "object", properties: { amount: { type: "number" } } },
        run: (args: any, ctx) => {
          log.push({ name: "refund", args, ...(ctx.answer ? { answer: ctx.answer } : {}) });
          if (ctx.answer) {
            return `refunded ${args.amount}`;
          }
          return pending({ kind: "approval", prompt: `Refund ${args.amount}?`, id: "req-refund" });
        },
      }),
    ],
  });
}

async function collect(iterable: AsyncIterable<RunEvent>) {
  const events: RunEvent[] = [];
  for await (const e of iterable) {
    events.push(e);
  }
  return events;
}
const texts = (events: RunEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.delta] : []));
const types = (events: RunEvent[]) => events.map((e) => e.type);
const doneOf = (events: RunEvent[]) =>
  (events.at(-1) as Extract<RunEvent, { type: "done" }>).result;
const sse = (
  style: Style,
  script: StreamScript,
  extra: Omit<Partial<Extract<SseStep, { sse: string }>>, "sse"> = {},
) => ({
  sse: streamFor(style, script),
  ...extra,
});

const HELLO = ["Bon", "jour, ", "日本", " 👋", "!"];

describe.each(STYLES)("%s stream()", (style) => {
  it("yields text deltas as they arrive, then usage, then done; the deltas make up the text", async () => {
    const { llm, client } = setup(style, [
      sse(style, { text: HELLO, usage: { prompt: 11, completion: 5 } }, { splitAt: "bytes" }),
    ]);
    const events = await collect(client.stream("hi", { toolkit: await toolkitWith() }));
    expect(types(events)).toEqual(["text", "text", "text", "text", "text", "usage", "done"]);
    expect(texts(events)).toEqual(HELLO);
    const result = doneOf(events);
    expect(result.status).toBe("done");
    expect(result.text).toBe(HELLO.join(""));
    expect(result.usage).toEqual({ promptTokens: 11, completionTokens: 5, totalTokens: 16 });
    expect(events[5]).toEqual({
      type: "usage",
      usage: { promptTokens: 11, completionTokens: 5, totalTokens: 16 },
    });
    expect(result.messages.at(-1)).toEqual({ role: "assistant", content: HELLO.join("") });
    if (style === "openai") {
      expect(llm.bodies[0]).toMatchObject({
        stream: true,
        stream_options: { include_usage: true },
      });
    } else {
      expect(llm.bodies[0].stream).toBe(true);
      expect(llm.bodies[0]).not.toHaveProperty("stream_options");
    }
  });

  it("next() called again before the last one settled: each call gets the next event, in order", async () => {
    const { client } = setup(style, [sse(style, { text: HELLO }, { splitAt: "bytes" })]);
    const iterator = client.stream("hi", { toolkit: await toolkitWith() })[Symbol.asyncIterator]();
    // Eight calls at once (seven events, then the end), none awaited before the next is made.
    const results = await Promise.all(Array.from({ length: 8 }, () => iterator.next()));
    const events = results.filter((r) => !r.done).map((r) => r.value as RunEvent);
    expect(types(events)).toEqual(["text", "text", "text", "text", "text", "usage", "done"]);
    expect(texts(events)).toEqual(HELLO);
    expect(results.at(-1)).toEqual({ value: undefined, done: true });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  it("run() on the same client still sends a plain request and reads JSON", async () => {
    const llm = fakeStreamLlm([
      {
        status: 200,
        body: JSON.stringify(render(style, { content: "whole" })),
        headers: { "content-type": "application/json" },
      },
    ]);
    const client = createClient({
      baseUrl: "https://llm.test/v1",
      style,
      model: "m",
      fetch: llm.fetch,
    });
    const result = await client.run("hi", { toolkit: await toolkitWith() });
    expect(result.text).toBe("whole");
    expect(llm.bodies[0]).not.toHaveProperty("stream");
    expect(llm.bodies[0]).not.toHaveProperty("stream_options");
  });

  it("a server that ignores the stream flag and answers JSON still works: the text comes once", async () => {
    const { client } = setup(style, [
      {
        status: 200,
        body: JSON.stringify(render(style, { content: "whole answer" })),
        headers: { "content-type": "application/json" },
      },
    ]);
    const events = await collect(client.stream("hi", { toolkit: await toolkitWith() }));
    expect(texts(events)).toEqual(["whole answer"]);
    expect(doneOf(events).text).toBe("whole answer");
  });

  it("tool calls split across many deltas run with whole arguments; the loop goes on streaming", async () => {
    const log: Array<{ name: string; args: unknown }> = [];
    const metrics: MetricEvent[] = [];
    const { llm, client } = setup(
      style,
      [
        sse(
          style,
          {
            text: ["Let me ", "check."],
            toolCalls: [
              { id: "call_w1", name: "get_weather", args: slices('{"city": "Zürich"}', 2) },
            ],
          },
          { splitAt: "bytes" },
        ),
        sse(style, { text: ["It is ", "sunny."], usage: { prompt: 30, completion: 4 } }),
      ],
      { onMetric: (e) => metrics.push(e) },
    );
    const events = await collect(client.stream("weather?", { toolkit: await toolkitWith(log) }));
    expect(log).toEqual([{ name: "get_weather", args: { city: "Zürich" } }]);
    expect(types(events)).toEqual([
      "text",
      "text",
      "usage",
      "tool_call",
      "tool_result",
      "text",
      "text",
      "usage",
      "done",
    ]);
    expect(events[3]).toEqual({
      type: "tool_call",
      id: "call_w1",
      name: "get_weather",
      args: { city: "Zürich" },
    });
    expect(events[4]).toMatchObject({
      type: "tool_result",
      id: "call_w1",
      output: "sunny in Zürich",
      isError: false,
    });
    const result = doneOf(events);
    expect(result.text).toBe("It is sunny.");
    expect(result.turns).toBe(2);
    expect(result.usage).toEqual({ promptTokens: 34, completionTokens: 6, totalTokens: 40 });
    // The streamed turn is stored like any other: the next request carries the call and its result.
    assertBalanced(style, llm.bodies[1]);
    expect(JSON.stringify(llm.bodies[1])).toContain("sunny in Zürich");
    expect(
      metrics
        .filter((m) => m.type === "llm_request")
        .map((m) => m.type === "llm_request" && m.status),
    ).toEqual(["ok", "ok"]);
    expect(metrics.filter((m) => m.type === "tool_call")).toHaveLength(1);
  });

  it("beforeLLM and afterLLM fire once per call, afterLLM with the assembled turn", async () => {
    const seen: unknown[] = [];
    const { client } = setup(
      style,
      [
        sse(style, {
          toolCalls: [{ id: "call_1", name: "get_time", args: slices('{"tz":"UTC"}') }],
        }),
        sse(style, { text: ["done"] }),
      ],
      {
        hooks: {
          beforeLLM: ({ turn }) => void seen.push(["before", turn]),
          afterLLM: ({ response, turn }) =>
            void seen.push([
              "after",
              turn,
              response.content,
              response.toolCalls.map((c) => c.arguments),
            ]),
        },
      },
    );
    await collect(client.stream("time?", { toolkit: await toolkitWith() }));
    expect(seen).toEqual([
      ["before", 0],
      ["after", 0, null, ['{"tz":"UTC"}']],
      ["before", 1],
      ["after", 1, "done", []],
    ]);
  });

  it("with waitFor: a call suspending mid-stream yields pending before waitFor is asked, then resumes", async () => {
    const log: Array<{ name: string; args: unknown; answer?: unknown }> = [];
    const consumed: RunEvent[] = [];
    let seenWhenAsked: string[] = [];
    const { client } = setup(
      style,
      [
        sse(
          style,
          {
            text: ["One ", "moment."],
            toolCalls: [{ id: "call_r", name: "refund", args: slices('{"amount": 42}', 4) }],
          },
          { splitAt: "bytes" },
        ),
        sse(style, { text: ["Refunded ", "42."] }),
      ],
      {
        waitFor: async (request) => {
          seenWhenAsked = types(consumed);
          return answerOutput(request.id, { by: "ann" });
        },
      },
    );
    for await (const e of client.stream("refund", { toolkit: await toolkitWith(log) })) {
      consumed.push(e);
    }
    expect(seenWhenAsked).toEqual(["text", "text", "usage", "tool_call", "pending"]);
    expect(types(consumed)).toEqual([
      "text",
      "text",
      "usage",
      "tool_call",
      "pending",
      "tool_result",
      "text",
      "text",
      "usage",
      "done",
    ]);
    expect(consumed[4]).toEqual({
      type: "pending",
      request: { id: "req-refund", kind: "approval", prompt: "Refund 42?" },
      id: "call_r",
    });
    expect(log).toEqual([
      { name: "refund", args: { amount: 42 } },
      {
        name: "refund",
        args: { amount: 42 },
        answer: { id: "req-refund", ok: true, data: { by: "ann" } },
      },
    ]);
    expect(doneOf(consumed)).toMatchObject({ status: "done", text: "Refunded 42." });
  });

  it("with waitFor declining: the tool does not run again and the model is told", async () => {
    const log: Array<{ name: string; args: unknown }> = [];
    const { llm, client } = setup(
      style,
      [
        sse(style, { toolCalls: [{ id: "call_r", name: "refund", args: ['{"amount": 5}'] }] }),
        sse(style, { text: ["Declined."] }),
      ],
      { waitFor: (request) => answerDeclined(request.id) },
    );
    const events = await collect(client.stream("refund", { toolkit: await toolkitWith(log) }));
    expect(log).toHaveLength(1);
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({
      output: "declined/expired: Refund 5?",
      isError: true,
    });
    expect(JSON.stringify(llm.bodies[1])).toContain("declined/expired: Refund 5?");
  });

  it("without waitFor: a durable halt mid-stream ends with pending, then done with status pending; resume streams on", async () => {
    const log: Array<{ name: string; args: unknown }> = [];
    const { llm, client } = setup(style, [
      sse(
        style,
        {
          text: ["Asking ", "a human."],
          toolCalls: [{ id: "call_r", name: "refund", args: slices('{"amount": 9}', 3) }],
        },
        { splitAt: "bytes" },
      ),
    ]);
    const toolkit = await toolkitWith(log);
    const events = await collect(client.stream("refund", { toolkit }));
    expect(types(events)).toEqual(["text", "text", "usage", "tool_call", "pending", "done"]);
    const halted = doneOf(events);
    expect(halted.status).toBe("pending");
    expect(halted.pending).toEqual({ id: "req-refund", kind: "approval", prompt: "Refund 9?" });
    expect(halted.text).toBe("");
    expect(llm.bodies).toHaveLength(1);

    // Resume through a client that streams on every entry point (what the edge uses).
    const resumed: RunEvent[] = [];
    const { llm: llm2, client: resumer } = setup(
      style,
      [sse(style, { text: ["Refunded", " 9."] })],
      {
        streaming: true,
        onEvent: (e) => resumed.push(e),
      },
    );
    const stored: RunResult = JSON.parse(JSON.stringify(halted));
    const result = await resumer.runWithAnswer({
      ...stored,
      toolkit,
      history: stored.messages,
      pending: stored.pending!,
      answer: answerOutput("req-refund"),
    });
    expect(result).toMatchObject({ status: "done", text: "Refunded 9." });
    expect(texts(resumed)).toEqual(["Refunded", " 9."]);
    expect(llm2.bodies[0].stream).toBe(true);
    assertBalanced(style, llm2.bodies[0]);
  });

  it("a stream cut before any delta is retried and succeeds; nothing is emitted twice", async () => {
    const script: StreamScript = { text: ["Hello", " there"] };
    const whole = streamFor(style, script);
    const beforeText = whole.indexOf("Hello") - 40; // inside the events that precede any text
    const { llm, client, waits } = setup(style, [
      { sse: whole, cutAt: beforeText },
      { sse: whole, splitAt: [7, 50, 51] },
    ]);
    const events = await collect(client.stream("hi", { toolkit: await toolkitWith() }));
    expect(texts(events)).toEqual(["Hello", " there"]);
    expect(llm.bodies).toHaveLength(2);
    expect(llm.bodies[1]).toEqual(llm.bodies[0]);
    expect(waits).toHaveLength(1);
  });

  it("a network error while reading, before any delta, is retried too", async () => {
    const whole = streamFor(style, { text: ["ok"] });
    const { llm, client } = setup(style, [{ sse: whole, failAt: 30 }, { sse: whole }]);
    const events = await collect(client.stream("hi", { toolkit: await toolkitWith() }));
    expect(doneOf(events).text).toBe("ok");
    expect(llm.bodies).toHaveLength(2);
  });

  it("a tool-call stream cut before any text is retried (tool-call deltas are not emitted)", async () => {
    const whole = streamFor(style, {
      toolCalls: [{ id: "call_t", name: "get_time", args: slices('{"tz":"UTC"}') }],
    });
    const log: Array<{ name: string; args: unknown }> = [];
    const { llm, client } = setup(style, [
      { sse: whole, cutAt: whole.indexOf('"tz') + 2 },
      { sse: whole },
      sse(style, { text: ["noon"] }),
    ]);
    const events = await collect(client.stream("time?", { toolkit: await toolkitWith(log) }));
    expect(doneOf(events).text).toBe("noon");
    expect(log).toEqual([{ name: "get_time", args: { tz: "UTC" } }]);
    expect(llm.bodies).toHaveLength(3);
  });

  it("a stream cut after some text is not retried: the run fails with a typed stream_interrupted ProviderError", async () => {
    const whole = streamFor(style, { text: ["Partial ", "answer ", "here"] });
    const asked: unknown[] = [];
    const metrics: MetricEvent[] = [];
    const { llm, client, waits } = setup(
      style,
      [{ sse: whole, cutAt: whole.indexOf("answer") + 20 }, { sse: whole }],
      {
        onError: (info) => void asked.push(info),
        onMetric: (e) => metrics.push(e),
      },
    );
    const seen: RunEvent[] = [];
    const error = await (async () => {
      for await (const e of client.stream("hi", { toolkit: await toolkitWith() })) {
        seen.push(e);
      }
    })().catch((e) => e);
    expect(texts(seen).join("")).toMatch(/^Partial /);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error.code).toBe("stream_interrupted");
    expect(error.afterOutput).toBe(true);
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/ended before its final event/);
    expect(llm.bodies).toHaveLength(1);
    expect(waits).toEqual([]);
    // Nothing to decide: text already delivered cannot be retried, so onError is not asked.
    expect(asked).toEqual([]);
    expect(metrics.filter((m) => m.type === "run")).toEqual([
      expect.objectContaining({ status: "failed", error: error.message }),
    ]);
    expect(
      metrics
        .filter((m) => m.type === "llm_request")
        .map((m) => m.type === "llm_request" && m.status),
    ).toEqual(["error"]);
  });

  it("a network error after some text is not retried either", async () => {
    const whole = streamFor(style, { text: ["Partial ", "answer"] });
    const { llm, client } = setup(style, [
      { sse: whole, failAt: whole.indexOf("answer") + 20 },
      { sse: whole },
    ]);
    const error = await collect(client.stream("hi", { toolkit: await toolkitWith() })).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error.message).toMatch(/network connection lost/);
    expect(llm.bodies).toHaveLength(1);
  });

  it("a cut before any delta that keeps happening gives up after `retries`", async () => {
    const whole = streamFor(style, { text: ["never"] });
    const cut = { sse: whole, cutAt: 20 };
    const { llm, client, waits } = setup(style, [cut, cut, cut, { sse: whole }]);
    const error = await collect(client.stream("hi", { toolkit: await toolkitWith() })).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error.afterOutput).toBe(false);
    expect(llm.bodies).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it("HTTP 429/503 on a streaming call follow the same retry policy as run()", async () => {
    const { llm, client, waits } = setup(style, [
      { status: 429, body: "slow down", headers: { "retry-after": "2" } },
      { status: 503, body: "busy" },
      sse(style, { text: ["fine"] }),
    ]);
    const events = await collect(client.stream("hi", { toolkit: await toolkitWith() }));
    expect(doneOf(events).text).toBe("fine");
    expect(llm.bodies).toHaveLength(3);
    expect(waits[0]).toBe(2000);
    expect(waits).toHaveLength(2);
  });

  it("an aborted signal mid-stream rejects with RunAbortedError", async () => {
    const controller = new AbortController();
    const whole = streamFor(style, { text: ["a", "b", "c"] });
    const { client } = setup(style, [{ sse: whole, splitAt: "bytes" }]);
    const error = await (async () => {
      for await (const e of client.stream("hi", {
        toolkit: await toolkitWith(),
        signal: controller.signal,
      })) {
        if (e.type === "text") {
          controller.abort(new Error("user left"));
        }
      }
    })().catch((e) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
  });

  it("leaving the loop early stops the run: no tool runs, no further model call", async () => {
    const log: Array<{ name: string; args: unknown }> = [];
    const { llm, client } = setup(style, [
      sse(
        style,
        {
          text: ["thinking"],
          toolCalls: [{ id: "call_w", name: "get_weather", args: ['{"city":"Oslo"}'] }],
        },
        { splitAt: "bytes" },
      ),
      sse(style, { text: ["unused"] }),
    ]);
    for await (const e of client.stream("hi", { toolkit: await toolkitWith(log) })) {
      if (e.type === "text") {
        break;
      }
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toEqual([]);
    expect(llm.bodies).toHaveLength(1);
  });

  it("the consumer's stop is not handed to fetch; leaving mid-request cancels that response's body as it starts", async () => {
    const encoder = new TextEncoder();
    const signals: Array<AbortSignal | undefined> = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let secondCancelled = false;
    let secondSent!: () => void;
    const sending = new Promise<void>((resolve) => (secondSent = resolve));
    const fetch = async (_url: RequestInfo | URL, init?: RequestInit) => {
      signals.push(init?.signal ?? undefined);
      const headers = { "content-type": "text/event-stream" };
      if (signals.length === 1) {
        const first = streamFor(style, {
          toolCalls: [{ id: "call_w", name: "get_weather", args: ['{"city":"Oslo"}'] }],
        });
        return new Response(first, { headers });
      }
      secondSent();
      await held; // the second turn's response starts only after the consumer has left
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => controller.enqueue(encoder.encode(": still thinking\n\n")),
        cancel: () => {
          secondCancelled = true;
        },
      });
      return new Response(body, { headers });
    };
    const client = createClient({
      baseUrl: "https://llm.test/v1",
      style,
      model: "stream-model",
      fetch,
    });
    const seen: string[] = [];
    for await (const e of client.stream("hi", { toolkit: await toolkitWith() })) {
      seen.push(e.type);
      if (e.type === "tool_result") {
        await sending; // leave while the next model call is in flight
        break;
      }
    }
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toContain("tool_result");
    expect(signals).toHaveLength(2);
    expect(signals).toEqual([undefined, undefined]);
    expect(secondCancelled).toBe(true);

    // A caller's own signal still reaches fetch.
    const llm = fakeStreamLlm([sse(style, { text: ["hi"] })]);
    const sent: Array<AbortSignal | undefined> = [];
    const withSignal = createClient({
      baseUrl: "https://llm.test/v1",
      style,
      model: "stream-model",
      fetch: (url, init) => (sent.push(init?.signal ?? undefined), llm.fetch(url, init)),
    });
    const own = new AbortController();
    const events = withSignal.stream("hi", { toolkit: await toolkitWith(), signal: own.signal });
    for await (const e of events) {
      seen.push(e.type);
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(AbortSignal);
  });

  /** A client whose one response sends the stream up to the first text delta ("Hel"), then stalls. */
  function clientStalledAfterFirstDelta(onCancel: () => void) {
    const events = streamFor(style, { text: ["Hel", "lo"] }).split("\n\n");
    const head = `${events.slice(0, events.findIndex((e) => e.includes("Hel")) + 1).join("\n\n")}\n\n`;
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(new TextEncoder().encode(head));
        }
        return new Promise(() => {}); // and nothing more, ever
      },
      cancel: onCancel,
    });
    const response = new Response(body, { headers: { "content-type": "text/event-stream" } });
    return createClient({
      baseUrl: "https://llm.test/v1",
      style,
      model: "stream-model",
      retries: 0,
      fetch: async () => response,
    });
  }

  it("leaving while the body is stalled cancels it: the read is not left waiting", async () => {
    let cancelled = false;
    const client = clientStalledAfterFirstDelta(() => {
      cancelled = true;
    });
    const seen: string[] = [];
    for await (const e of client.stream("hi", { toolkit: await toolkitWith() })) {
      if (e.type === "text") {
        seen.push(e.delta);
        break;
      }
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual(["Hel"]);
    expect(cancelled).toBe(true);
  });

  it("a caller's abort during a stalled body ends the run and cancels the body", async () => {
    let cancelled = false;
    const client = clientStalledAfterFirstDelta(() => {
      cancelled = true;
    });
    const own = new AbortController();
    const deltas: string[] = [];
    const error = await client
      .ask("hi", {
        toolkit: await toolkitWith(),
        signal: own.signal,
        onText: (d) => {
          deltas.push(d);
          setTimeout(() => own.abort(new Error("stop")), 5);
        },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(deltas).toEqual(["Hel"]);
    expect(cancelled).toBe(true);
  });

  it("ask() with onText streams: the deltas concatenate to the final text, and the conversation is kept", async () => {
    const { llm, client } = setup(style, [
      sse(style, { text: HELLO }, { splitAt: "bytes" }),
      sse(style, { text: ["Again", ", ", "hi"] }),
    ]);
    const toolkit = await toolkitWith();
    const deltas: string[] = [];
    const result = await client.ask("hi", { toolkit, id: "conv-1", onText: (d) => deltas.push(d) });
    expect(deltas).toEqual(HELLO);
    expect(deltas.join("")).toBe(result.text);
    expect(llm.bodies[0].stream).toBe(true);
    const second: string[] = [];
    const again = await client.ask("once more", {
      toolkit,
      id: "conv-1",
      onText: (d) => second.push(d),
    });
    expect(second.join("")).toBe(again.text);
    expect(llm.bodies[1].messages.length).toBeGreaterThan(llm.bodies[0].messages.length);
  });

  it("ask() without onText does not stream", async () => {
    const llm = fakeStreamLlm([
      {
        status: 200,
        body: JSON.stringify(render(style, { content: "plain" })),
        headers: { "content-type": "application/json" },
      },
    ]);
    const client = createClient({
      baseUrl: "https://llm.test/v1",
      style,
      model: "m",
      fetch: llm.fetch,
    });
    expect((await client.ask("hi", { toolkit: await toolkitWith() })).text).toBe("plain");
    expect(llm.bodies[0]).not.toHaveProperty("stream");
  });

  it("ask({ onText }) on a client with onEvent: each delta reaches both, once", async () => {
    const seen: RunEvent[] = [];
    const { client } = setup(style, [sse(style, { text: HELLO }, { splitAt: "bytes" })], {
      onEvent: (e) => seen.push(e),
    });
    const deltas: string[] = [];
    await client.ask("hi", { toolkit: await toolkitWith(), onText: (d) => deltas.push(d) });
    expect(deltas).toEqual(HELLO);
    expect(texts(seen)).toEqual(HELLO);
    expect(types(seen).at(-1)).toBe("done");
  });

  it("an onText that throws fails the run with its own error, not retried", async () => {
    const { llm, client } = setup(style, [
      sse(style, { text: ["a", "b"] }),
      sse(style, { text: ["unused"] }),
    ]);
    const boom = new Error("sink broke");
    const error = await client
      .ask("hi", {
        toolkit: await toolkitWith(),
        onText: () => {
          throw boom;
        },
      })
      .catch((e) => e);
    expect(error).toBe(boom);
    expect(llm.bodies).toHaveLength(1);
  });

  it("the streaming option: run() streams and onEvent gets every delta, once", async () => {
    const seen: RunEvent[] = [];
    const { llm, client } = setup(style, [sse(style, { text: HELLO }, { splitAt: "bytes" })], {
      streaming: true,
      onEvent: (e) => seen.push(e),
    });
    const result = await client.run("hi", { toolkit: await toolkitWith() });
    expect(texts(seen)).toEqual(HELLO);
    expect(result.text).toBe(HELLO.join(""));
    expect(llm.bodies[0].stream).toBe(true);
    expect(types(seen).at(-1)).toBe("done");
  });
});

describe("openai parallel tool calls", () => {
  it("two calls interleaved by index across many deltas both run, with their own arguments, in index order", async () => {
    const log: Array<{ name: string; args: unknown }> = [];
    const { llm, client } = setup("openai", [
      sse(
        "openai",
        {
          interleave: true,
          toolCalls: [
            { id: "call_a", name: "get_weather", args: slices('{"city": "Zürich"}', 2) },
            { id: "call_b", name: "get_time", args: slices('{"tz": "Asia/東京"}', 2) },
          ],
        },
        { splitAt: "bytes" },
      ),
      sse("openai", { text: ["Both done."] }),
    ]);
    const events = await collect(client.stream("both", { toolkit: await toolkitWith(log) }));
    expect(events.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", id: "call_a", name: "get_weather", args: { city: "Zürich" } },
      { type: "tool_call", id: "call_b", name: "get_time", args: { tz: "Asia/東京" } },
    ]);
    expect(log.map((l) => l.name).sort()).toEqual(["get_time", "get_weather"]);
    const assistant = llm.bodies[1].messages.find((m: any) => m.role === "assistant");
    expect(
      assistant.tool_calls.map((c: any) => [
        c.id,
        c.function.name,
        JSON.parse(c.function.arguments),
      ]),
    ).toEqual([
      ["call_a", "get_weather", { city: "Zürich" }],
      ["call_b", "get_time", { tz: "Asia/東京" }],
    ]);
    expect(
      llm.bodies[1].messages.filter((m: any) => m.role === "tool").map((m: any) => m.content),
    ).toEqual(["sunny in Zürich", "noon in Asia/東京"]);
  });
});

describe("error events inside a stream", () => {
  const overloaded = `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;

  it("anthropic: an overloaded error event before any text is retried like a 529", async () => {
    const { llm, client, waits } = setup("anthropic", [
      { sse: overloaded },
      sse("anthropic", { text: ["fine"] }),
    ]);
    const events = await collect(client.stream("hi", { toolkit: await toolkitWith() }));
    expect(doneOf(events).text).toBe("fine");
    expect(llm.bodies).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it("anthropic: the same error after some text fails the run with the provider's message", async () => {
    const partial = streamFor("anthropic", { text: ["Half"] }).split(
      "event: content_block_stop",
    )[0]!;
    const { llm, client } = setup("anthropic", [
      { sse: partial + overloaded },
      sse("anthropic", { text: ["unused"] }),
    ]);
    const error = await collect(client.stream("hi", { toolkit: await toolkitWith() })).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toContain("Overloaded");
    expect(llm.bodies).toHaveLength(1);
  });

  it("openai: an invalid-request error chunk is not retried", async () => {
    const chunk = `data: {"error":{"message":"Invalid schema for function","type":"invalid_request_error","param":"tools[0]","code":null}}\n\n`;
    const { llm, client } = setup("openai", [{ sse: chunk }, sse("openai", { text: ["unused"] })]);
    const error = await collect(client.stream("hi", { toolkit: await toolkitWith() })).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toContain("Invalid schema for function");
    expect(llm.bodies).toHaveLength(1);
  });
});

describe("in-process client", () => {
  const client = () =>
    createInProcessClient({ model: "local", generate: () => ({ content: "a whole answer" }) });

  it("stream() refuses on first iteration: a whole answer is not a stream", async () => {
    const iterable = client().stream("hi", { toolkit: await toolkitWith() });
    const iterator = iterable[Symbol.asyncIterator]();
    const error = await iterator.next().catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/not a stream/);
    expect(error.message).toMatch(/does not support streaming/); // the SPEC's words
  });

  it("ask() with onText falls back: onText is called once with the whole text", async () => {
    const deltas: string[] = [];
    const result = await client().ask("hi", {
      toolkit: await toolkitWith(),
      onText: (d) => deltas.push(d),
    });
    expect(deltas).toEqual(["a whole answer"]);
    expect(result.text).toBe("a whole answer");
  });

  it("the streaming option is accepted: text arrives whole, once per turn", async () => {
    const seen: RunEvent[] = [];
    const c = createInProcessClient({
      model: "local",
      streaming: true,
      onEvent: (e) => seen.push(e),
      generate: () => ({ content: "whole" }),
    });
    await c.run("hi", { toolkit: await toolkitWith() });
    expect(texts(seen)).toEqual(["whole"]);
  });
});
