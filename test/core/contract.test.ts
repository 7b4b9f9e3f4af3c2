/**
 * Behaviours where the kernel once differed from the toolnexus contract (SPEC §0, §1,
 * §8): request shaping, stateless `ask`, `stream` with a conversation id, the `onError`
 * classifier, the `maxTurns` limit, the per-run metric, and a few small edges.
 */
import { describe, expect, it, vi } from "vitest";
import {
  ProviderError,
  createClient,
  createInProcessClient,
  createToolkit,
  defineTool,
  httpTool,
  memoryConversationStore,
  type ClientOptions,
  type MetricEvent,
  type RunEvent,
} from "../../src/core";
import { fakeLlm, type Step, type Style } from "../helpers/fake-llm";
import { fakeStreamLlm, streamFor } from "../helpers/fake-sse";

const STYLES: Style[] = ["openai", "anthropic"];

function setup(style: Style, steps: Step[], extra: Partial<ClientOptions> = {}) {
  const fake = fakeLlm(style, steps);
  const waits: number[] = [];
  const client = createClient({
    baseUrl: "https://llm.test/v1",
    style,
    model: "contract-model",
    fetch: fake.fetch,
    retryBaseMs: 100,
    sleep: async (ms) => void waits.push(ms),
    ...extra,
  });
  return { fake, client, waits };
}

const echo = defineTool({
  name: "echo",
  description: "Echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  run: ({ text }: { text: string }) => `echo:${text}`,
});

/** The user-visible text of every message a request carried, in either style. */
function texts(body: any): string[] {
  return body.messages.map((m: any) =>
    typeof m.content === "string"
      ? m.content
      : (m.content ?? []).map((b: any) => b.text ?? b.content ?? "").join(""),
  );
}

describe.each(STYLES)("%s: requestParams never replace the request's own members", (style) => {
  it("model, messages, system, tools, tool_choice, stream and stream_options stay the client's", async () => {
    const { fake, client } = setup(style, [{ content: "fine" }], {
      systemPrompt: "Be brief.",
      requestParams: {
        model: "other-model",
        messages: [{ role: "user", content: "INJECTED" }],
        system: "INJECTED SYSTEM",
        tools: [{ type: "function", function: { name: "ghost", parameters: {} } }],
        tool_choice: "required",
        stream: true,
        stream_options: { include_usage: false },
        temperature: 0.2,
        max_tokens: 77,
      },
    });
    const result = await client.run("What is 2+2?", {
      toolkit: await createToolkit({ tools: [echo] }),
    });
    expect(result.text).toBe("fine");
    const body = fake.bodies[0];
    expect(body.model).toBe("contract-model");
    expect(texts(body)).toContain("What is 2+2?");
    expect(JSON.stringify(body)).not.toContain("INJECTED");
    expect(JSON.stringify(body.tools)).not.toContain("ghost");
    // Issue 40: the openai style's own "auto" with tools (never the params' "required").
    if (style === "openai") {
      expect(body.tool_choice).toBe("auto");
    } else {
      expect(body).not.toHaveProperty("tool_choice");
    }
    expect(body).not.toHaveProperty("stream");
    expect(body).not.toHaveProperty("stream_options");
    // Everything else is still merged, and wins over the client's defaults.
    expect(body.temperature).toBe(0.2);
    expect(body.max_tokens).toBe(77);
  });

  it("with no tools, requestParams cannot add a tool list either", async () => {
    const { fake, client } = setup(style, [{ content: "fine" }], {
      requestParams: { tools: [{ type: "function", function: { name: "ghost", parameters: {} } }] },
    });
    await client.run("hi", { toolkit: await createToolkit({ tools: [] }) });
    expect(fake.bodies[0]).not.toHaveProperty("tools");
  });

  it("a streamed call still streams whatever requestParams say", async () => {
    const llm = fakeStreamLlm([{ sse: streamFor(style, { text: ["ok"] }) }]);
    const client = createClient({
      baseUrl: "https://llm.test/v1",
      style,
      model: "contract-model",
      fetch: llm.fetch,
      requestParams: { stream: false },
    });
    const events: RunEvent[] = [];
    for await (const e of client.stream("hi", { toolkit: await createToolkit({ tools: [] }) })) {
      events.push(e);
    }
    expect(llm.bodies[0].stream).toBe(true);
    expect(events.at(-1)?.type).toBe("done");
  });

  it("bodyTransform still sees and may change the whole body (the escape hatch)", async () => {
    const { fake, client } = setup(style, [{ content: "fine" }], {
      requestParams: { tool_choice: "required" },
      bodyTransform: (body) => ({ ...body, tool_choice: "auto" }),
    });
    await client.run("hi", { toolkit: await createToolkit({ tools: [echo] }) });
    expect(fake.bodies[0].tool_choice).toBe("auto");
  });
});

it("the dropped requestParams are named once, when the client is made", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  try {
    const { client } = setup("openai", [{ content: "a" }, { content: "b" }], {
      requestParams: { messages: [], stream: true, temperature: 0 },
    });
    const toolkit = await createToolkit({ tools: [] });
    await client.run("one", { toolkit });
    await client.run("two", { toolkit });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/requestParams: messages, stream are/);
  } finally {
    warn.mockRestore();
  }
});

describe("ask() without an id is a one-shot", () => {
  it("sends only its own prompt each time and leaves the store untouched", async () => {
    const store = memoryConversationStore();
    const { fake, client } = setup(
      "openai",
      [{ content: "a" }, { content: "b" }, { content: "c" }],
      {
        store,
      },
    );
    const toolkit = await createToolkit({ tools: [] });
    await client.ask("one", { toolkit });
    await client.ask("two", { toolkit });
    await client.ask("three", { toolkit });
    expect(fake.bodies.map((b) => b.messages.length)).toEqual([1, 1, 1]);
    expect(store.ids()).toEqual([]);
  });

  it("with an id it continues the conversation (unchanged)", async () => {
    const { fake, client } = setup("openai", [{ content: "a" }, { content: "b" }]);
    const toolkit = await createToolkit({ tools: [] });
    await client.ask("one", { toolkit, id: "t1" });
    await client.ask("two", { toolkit, id: "t1" });
    expect(fake.bodies.map((b) => b.messages.length)).toEqual([1, 3]);
  });

  it("askWithAnswer needs the conversation's id", async () => {
    const { client } = setup("openai", []);
    const toolkit = await createToolkit({ tools: [] });
    await expect(
      client.askWithAnswer({
        toolkit,
        pending: { id: "r1", kind: "approval", prompt: "ok?" },
        answer: { id: "r1", ok: true },
      } as any),
    ).rejects.toThrow(/id/);
  });
});

describe.each(STYLES)("%s: stream() with a conversation id", (style) => {
  it("loads the thread's transcript first and saves it when done, like ask()", async () => {
    const llm = fakeStreamLlm([
      { sse: streamFor(style, { text: ["first"] }) },
      { sse: streamFor(style, { text: ["second"] }) },
      { sse: streamFor(style, { text: ["third"] }) },
    ]);
    const store = memoryConversationStore();
    const client = createClient({
      baseUrl: "https://llm.test/v1",
      style,
      model: "contract-model",
      fetch: llm.fetch,
      store,
    });
    const toolkit = await createToolkit({ tools: [] });
    await client.ask("one", { toolkit, id: "t", onText: () => {} });
    let done: RunEvent | undefined;
    for await (const e of client.stream("two", { toolkit, id: "t" })) {
      if (e.type === "done") {
        done = e;
        // Saved by the time `done` is seen.
        expect((await store.get("t"))?.length).toBe(4);
      }
    }
    expect(done?.type === "done" && done.result.text).toBe("second");
    expect(texts(llm.bodies[1])).toEqual(["one", "first", "two"]);
    // Without an id the stream is stateless and the store stays as it was.
    for await (const _ of client.stream("three", { toolkit })) {
      // drain
    }
    expect(texts(llm.bodies[2])).toEqual(["three"]);
    expect((await store.get("t"))?.length).toBe(4);
  });
});

describe("onError decides retry or fail", () => {
  const status = (code: number, headers?: Record<string, string>): Step => ({
    status: code,
    body: `upstream ${code}`,
    headers,
  });

  it("is asked once per failed attempt with { status, attempt, retryable }", async () => {
    const infos: unknown[] = [];
    const { fake, client } = setup("openai", [status(503), status(429), { content: "ok" }], {
      onError: (info) => {
        infos.push(info);
        return undefined;
      },
    });
    const result = await client.run("hi", { toolkit: await createToolkit({ tools: [] }) });
    expect(result.text).toBe("ok");
    expect(fake.bodies).toHaveLength(3);
    expect(infos).toEqual([
      { status: 503, attempt: 0, retryable: true },
      { status: 429, attempt: 1, retryable: true },
    ]);
  });

  it('"fail" stops at once, skipping the remaining retries', async () => {
    const { fake, client, waits } = setup("openai", [status(503), { content: "never" }], {
      onError: () => "fail",
    });
    const error = await client
      .run("hi", { toolkit: await createToolkit({ tools: [] }) })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.status).toBe(503);
    expect(fake.bodies).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('"retry" retries what the default would not (a 400), still bounded by retries', async () => {
    const infos: Array<{ status?: number; attempt: number; retryable: boolean }> = [];
    const { fake, client, waits } = setup(
      "openai",
      [status(400), status(400), status(400), status(400)],
      {
        retries: 2,
        onError: (info) => {
          infos.push(info);
          return "retry";
        },
      },
    );
    const error = await client
      .run("hi", { toolkit: await createToolkit({ tools: [] }) })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(fake.bodies).toHaveLength(3);
    expect(waits).toHaveLength(2);
    expect(infos.map((i) => [i.status, i.attempt, i.retryable])).toEqual([
      [400, 0, false],
      [400, 1, false],
      [400, 2, false],
    ]);
  });

  it("a network failure carries the error, not a status", async () => {
    const infos: Array<{ error?: unknown; status?: number }> = [];
    const { client } = setup("openai", [new Error("connection reset"), { content: "ok" }], {
      onError: (info) => void infos.push(info),
    });
    await client.run("hi", { toolkit: await createToolkit({ tools: [] }) });
    expect(infos).toHaveLength(1);
    expect(infos[0]?.status).toBeUndefined();
    expect(String(infos[0]?.error)).toContain("connection reset");
  });

  it("is not asked about an abort", async () => {
    const infos: unknown[] = [];
    const controller = new AbortController();
    const fake: typeof fetch = async (_input, init) => {
      controller.abort(new Error("stop"));
      throw init?.signal?.reason ?? new Error("aborted");
    };
    const client = createClient({
      baseUrl: "https://llm.test/v1",
      style: "openai",
      model: "m",
      fetch: fake,
      onError: (info) => void infos.push(info),
    });
    await expect(
      client.run("hi", { toolkit: await createToolkit({ tools: [] }), signal: controller.signal }),
    ).rejects.toThrow();
    expect(infos).toEqual([]);
  });
});

describe("limits and the run metric", () => {
  it.each(STYLES)('%s: a run stopped by maxTurns says limit "maxTurns"', async (style) => {
    const call = { id: "c1", name: "echo", args: { text: "x" } };
    const { client } = setup(
      style,
      [{ toolCalls: [call] }, { toolCalls: [{ ...call, id: "c2" }] }],
      {
        maxTurns: 2,
      },
    );
    const result = await client.run("loop", { toolkit: await createToolkit({ tools: [echo] }) });
    expect(result.status).toBe("incomplete");
    expect(result.limit).toBe("maxTurns");
  });

  it("onMetric gets one run event per run with the run's totals", async () => {
    const events: MetricEvent[] = [];
    const { client } = setup(
      "openai",
      [
        {
          toolCalls: [{ id: "c1", name: "echo", args: { text: "x" } }],
          usage: { prompt: 10, completion: 5 },
        },
        { content: "done", usage: { prompt: 20, completion: 3 } },
      ],
      { onMetric: (e) => events.push(e) },
    );
    await client.run("go", { toolkit: await createToolkit({ tools: [echo] }) });
    const runs = events.filter((e) => e.type === "run");
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      type: "run",
      model: "contract-model",
      status: "done",
      turns: 2,
      toolCalls: 1,
      totalTokens: 38,
    });
    expect(runs[0]).not.toHaveProperty("error");
    expect(typeof (runs[0] as { durationMs: number }).durationMs).toBe("number");
    expect(events.at(-1)?.type).toBe("run");
  });

  it("a failed run's run event carries its error", async () => {
    const events: MetricEvent[] = [];
    const { client } = setup("openai", [{ status: 400, body: "bad" }], {
      onMetric: (e) => events.push(e),
    });
    await expect(
      client.run("go", { toolkit: await createToolkit({ tools: [] }) }),
    ).rejects.toThrow();
    const run = events.find((e) => e.type === "run");
    expect(run).toMatchObject({ type: "run", status: "failed", turns: 0, toolCalls: 0 });
    expect(run && "error" in run && run.error).toContain("LLM 400: bad");
  });
});

describe("small edges", () => {
  it("httpTool executes without a context", async () => {
    const tool = httpTool({
      name: "get_item",
      description: "Get an item",
      url: "https://api.test/items/{id}",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      fetch: async (input) => new Response(`got ${new Request(input as RequestInfo).url}`),
    });
    const result = await tool.execute({ id: "7" });
    expect(result).toEqual({ output: "got https://api.test/items/7", isError: false });
  });

  it("defineTool executes without a context too", async () => {
    expect(await echo.execute({ text: "hi" })).toEqual({ output: "echo:hi", isError: false });
  });

  it("content parts are flattened to their text with nothing between them", async () => {
    const { fake, client } = setup("anthropic", [{ content: "ok" }]);
    await client.translate({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Hel" },
            { type: "image_url", image_url: { url: "https://x.test/a.png" } },
            { type: "text", text: "lo" },
          ],
        } as any,
      ],
    });
    expect(fake.bodies[0].messages[0].content).toEqual([{ type: "text", text: "Hello" }]);
  });

  it("createInProcessClient without generate throws at construction", () => {
    expect(() => createInProcessClient({ model: "m" } as any)).toThrow(TypeError);
    expect(() => createInProcessClient({ model: "m" } as any)).toThrow(
      "createInProcessClient requires a `generate` function",
    );
  });

  it.each(["2147483648", "99999999999999999999"])(
    "Retry-After %s (out of range) falls back to backoff",
    async (value) => {
      const { waits, client } = setup("openai", [
        { status: 429, body: "slow", headers: { "retry-after": value } },
        { content: "ok" },
      ]);
      await client.run("hi", { toolkit: await createToolkit({ tools: [] }) });
      expect(waits).toHaveLength(1);
      expect(waits[0]).toBeGreaterThanOrEqual(50);
      expect(waits[0]).toBeLessThanOrEqual(100);
    },
  );

  it("Retry-After at the top of the range is honoured, capped", async () => {
    const { waits, client } = setup("openai", [
      { status: 429, body: "slow", headers: { "retry-after": "2147483647" } },
      { content: "ok" },
    ]);
    await client.run("hi", { toolkit: await createToolkit({ tools: [] }) });
    expect(waits).toEqual([60_000]);
  });
});
