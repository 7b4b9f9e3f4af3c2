/**
 * `client.translate()`: one provider call, no loop, no tool execution, no state.
 * Every inbound rule is checked against the exact body sent, on both wire styles.
 */
import { describe, expect, it } from "vitest";
import {
  ProviderError,
  createClient,
  createInProcessClient,
  createToolkit,
  defineTool,
  type ChatMessage,
  type ChatTool,
  type ClientOptions,
  type MetricEvent,
  type ModelRequest,
} from "../../src/core";
import { fakeLlm, type Step, type Style } from "../helpers/fake-llm";

function setup(style: Style, steps: Step[], extra: Partial<ClientOptions> = {}) {
  const llm = fakeLlm(style, steps);
  const client = createClient({
    baseUrl: "https://llm.test/v1",
    style,
    model: "tr-model",
    fetch: llm.fetch,
    sleep: async () => {},
    ...extra,
  });
  return { llm, client };
}

const WEATHER: ChatTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    strict: true,
  } as ChatTool["function"],
};

/** A multi-turn OpenAI conversation exercising every inbound rule. */
const CONVERSATION: ChatMessage[] = [
  { role: "system", content: "You are terse." },
  { role: "developer", content: [{ type: "text", text: "Use metric units." }] },
  {
    role: "user",
    content: [
      { type: "text", text: "Weather in Paris" },
      { type: "image_url", image_url: { url: "https://x/y.png" } },
      { type: "text", text: "and Rome?" },
    ],
  },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_1",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris"}' },
      },
      {
        id: "call_2",
        type: "function",
        function: { name: "get_weather", arguments: { city: "Rome" } },
      },
    ],
  },
  { role: "tool", tool_call_id: "call_1", content: "18C" },
  { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "24C" }] },
  { role: "user", content: "Thanks. Which is warmer?" },
];

describe("openai: messages, tools and tool_choice go out verbatim", () => {
  it("sends the messages, tools and tool_choice exactly as given (only object arguments become JSON text)", async () => {
    const { llm, client } = setup("openai", [{ content: "Rome." }]);
    const result = await client.translate({
      messages: CONVERSATION,
      tools: [WEATHER],
      toolChoice: "auto",
    });
    const expectedMessages = structuredClone(CONVERSATION) as any[];
    expectedMessages[3].tool_calls[1].function.arguments = '{"city":"Rome"}';
    expect(llm.bodies[0]).toEqual({
      model: "tr-model",
      messages: expectedMessages,
      tools: [WEATHER],
      tool_choice: "auto",
    });
    expect(llm.urls[0]).toBe("https://llm.test/v1/chat/completions");
    expect(result).toMatchObject({
      text: "Rome.",
      toolCalls: [],
      finishReason: "stop",
      model: "fake-model",
    });
  });

  it("an explicit system replaces the system/developer messages", async () => {
    const { llm, client } = setup("openai", [{ content: "ok" }]);
    await client.translate({ messages: CONVERSATION, system: "Be brief." });
    const roles = llm.bodies[0].messages.map((m: any) => m.role);
    expect(llm.bodies[0].messages[0]).toEqual({ role: "system", content: "Be brief." });
    expect(roles.filter((r: string) => r === "system" || r === "developer")).toHaveLength(1);
    expect(llm.bodies[0].messages.slice(1)).toEqual(
      CONVERSATION.slice(2).map((m: any) =>
        m.tool_calls
          ? {
              ...m,
              tool_calls: m.tool_calls.map((c: any) => ({
                ...c,
                function: {
                  ...c.function,
                  arguments:
                    typeof c.function.arguments === "string"
                      ? c.function.arguments
                      : JSON.stringify(c.function.arguments),
                },
              })),
            }
          : m,
      ),
    );
  });

  it("a named tool_choice and maxTokens go out as OpenAI has them", async () => {
    const { llm, client } = setup("openai", [{ content: "ok" }]);
    const toolChoice = { type: "function" as const, function: { name: "get_weather" } };
    await client.translate({
      messages: [{ role: "user", content: "hi" }],
      tools: [WEATHER],
      toolChoice,
      maxTokens: 64,
    });
    expect(llm.bodies[0]).toEqual({
      model: "tr-model",
      messages: [{ role: "user", content: "hi" }],
      tools: [WEATHER],
      tool_choice: toolChoice,
      max_tokens: 64,
    });
  });
});

describe("anthropic: converted from OpenAI format", () => {
  it("hoists system/developer, flattens arrays, turns tool_calls into tool_use with object input, merges tool results into one user turn", async () => {
    const { llm, client } = setup("anthropic", [{ content: "Rome." }]);
    await client.translate({ messages: CONVERSATION, tools: [WEATHER] });
    expect(llm.urls[0]).toBe("https://llm.test/v1/messages");
    expect(llm.bodies[0]).toEqual({
      model: "tr-model",
      max_tokens: 4096,
      system: "You are terse.\n\nUse metric units.",
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather in Parisand Rome?" }] },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "call_2", name: "get_weather", input: { city: "Rome" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "18C" },
            { type: "tool_result", tool_use_id: "call_2", content: "24C" },
            { type: "text", text: "Thanks. Which is warmer?" },
          ],
        },
      ],
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          input_schema: {
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
          },
        },
      ],
    });
  });

  it("assistant text before tool calls stays a text block ahead of the tool_use blocks", async () => {
    const { llm, client } = setup("anthropic", [{ content: "ok" }]);
    await client.translate({
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: "Looking.",
          tool_calls: [
            { id: "t1", type: "function", function: { name: "get_weather", arguments: "" } },
          ],
        },
        { role: "tool", tool_call_id: "t1", content: "sunny" },
      ],
    });
    expect(llm.bodies[0].messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "t1", name: "get_weather", input: {} },
      ],
    });
    expect(llm.bodies[0].messages[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t1", content: "sunny" }],
    });
  });

  it("an explicit system overrides the hoisted ones", async () => {
    const { llm, client } = setup("anthropic", [{ content: "ok" }]);
    await client.translate({ messages: CONVERSATION, system: "Be brief." });
    expect(llm.bodies[0].system).toBe("Be brief.");
  });

  it("no system at all ⇒ no system key", async () => {
    const { llm, client } = setup("anthropic", [{ content: "ok" }]);
    await client.translate({ messages: [{ role: "user", content: "hi" }] });
    expect(llm.bodies[0]).toEqual({
      model: "tr-model",
      max_tokens: 4096,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
  });

  it("toolChoice auto (Anthropic's default) is left out of the body, as upstream does", async () => {
    const { llm, client } = setup("anthropic", [{ content: "ok" }]);
    await client.translate({
      messages: [{ role: "user", content: "hi" }],
      tools: [WEATHER],
      toolChoice: "auto",
    });
    expect(llm.bodies[0]).not.toHaveProperty("tool_choice");
    expect(llm.bodies[0].tools).toHaveLength(1);
  });

  it.each([
    ["none", { type: "none" }],
    ["required", { type: "any" }],
    [
      { type: "function", function: { name: "get_weather" } },
      { type: "tool", name: "get_weather" },
    ],
  ] as const)("toolChoice %j ⇒ %j", async (toolChoice, expected) => {
    const { llm, client } = setup("anthropic", [{ content: "ok" }]);
    await client.translate({
      messages: [{ role: "user", content: "hi" }],
      tools: [WEATHER],
      toolChoice: toolChoice as any,
    });
    expect(llm.bodies[0].tool_choice).toEqual(expected);
  });

  it("maxTokens becomes max_tokens (replacing the default)", async () => {
    const { llm, client } = setup("anthropic", [{ content: "ok" }]);
    await client.translate({ messages: [{ role: "user", content: "hi" }], maxTokens: 99 });
    expect(llm.bodies[0].max_tokens).toBe(99);
  });

  it("a tool without parameters gets an empty object schema", async () => {
    const { llm, client } = setup("anthropic", [{ content: "ok" }]);
    await client.translate({
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "ping" } }],
    });
    expect(llm.bodies[0].tools).toEqual([
      { name: "ping", description: "", input_schema: { type: "object", properties: {} } },
    ]);
  });
});

describe.each<Style>(["openai", "anthropic"])("%s translate result", (style) => {
  it("tool calls come back in provider order with JSON-text arguments, none dropped; finishReason tool_calls", async () => {
    const { client } = setup(style, [
      {
        content: "Checking both.",
        toolCalls: [
          { id: "c_b", name: "get_weather", args: { city: "Rome" } },
          { id: "c_a", name: "get_weather", args: { city: "Paris" } },
          { id: "c_c", name: "not_declared", args: {} },
        ],
        usage: { prompt: 12, completion: 8 },
      },
    ]);
    const result = await client.translate({
      messages: [{ role: "user", content: "go" }],
      tools: [WEATHER],
    });
    expect(result.toolCalls).toEqual([
      { id: "c_b", name: "get_weather", arguments: '{"city":"Rome"}' },
      { id: "c_a", name: "get_weather", arguments: '{"city":"Paris"}' },
      { id: "c_c", name: "not_declared", arguments: "{}" },
    ]);
    expect(result.finishReason).toBe("tool_calls");
    expect(result.text).toBe("Checking both.");
    expect(result.usage).toEqual({ promptTokens: 12, completionTokens: 8, totalTokens: 20 });
    expect(result.model).toBe("fake-model");
    expect(result.raw).toBeTruthy();
  });

  it.each([
    ["length", "length", "max_tokens"],
    ["content_filter", "content_filter", "refusal"],
    ["stop", "stop", "end_turn"],
  ])("finishReason %s", async (expected, openaiFinish, anthropicFinish) => {
    const { client } = setup(style, [
      { content: "x", finish: style === "openai" ? openaiFinish : anthropicFinish },
    ]);
    const result = await client.translate({ messages: [{ role: "user", content: "go" }] });
    expect(result.finishReason).toBe(expected);
  });

  it("an unknown provider finish reason without tool calls is reported as stop", async () => {
    const { client } = setup(style, [{ content: "x", finish: "something_new" }]);
    expect(
      (await client.translate({ messages: [{ role: "user", content: "go" }] })).finishReason,
    ).toBe("stop");
  });

  it("a toolkit is declared (schemas sent) but never executed; a same-named explicit tool wins", async () => {
    const runs: unknown[] = [];
    const toolkit = await createToolkit({
      tools: [
        defineTool({
          name: "lookup",
          description: "Look up",
          inputSchema: { type: "object", properties: { q: { type: "string" } } },
          run: (a) => (runs.push(a), "x"),
        }),
        defineTool({
          name: "get_weather",
          description: "shadowed",
          run: (a) => (runs.push(a), "y"),
        }),
      ],
    });
    const { llm, client } = setup(style, [
      { toolCalls: [{ id: "c1", name: "lookup", args: { q: "a" } }] },
    ]);
    const result = await client.translate({
      messages: [{ role: "user", content: "go" }],
      tools: [WEATHER],
      toolkit,
    });
    expect(runs).toEqual([]);
    expect(result.toolCalls).toEqual([{ id: "c1", name: "lookup", arguments: '{"q":"a"}' }]);
    const names = llm.bodies[0].tools.map((t: any) =>
      style === "openai" ? t.function.name : t.name,
    );
    expect(names).toEqual(["get_weather", "lookup"]);
    const weather = llm.bodies[0].tools[0];
    expect(style === "openai" ? weather.function.description : weather.description).toBe(
      "Weather for a city",
    );
  });

  it("no tools ⇒ no tools and no tool_choice in the body", async () => {
    const { llm, client } = setup(style, [{ content: "ok" }]);
    await client.translate({ messages: [{ role: "user", content: "hi" }], toolChoice: "required" });
    expect(llm.bodies[0]).not.toHaveProperty("tools");
    expect(llm.bodies[0]).not.toHaveProperty("tool_choice");
  });

  it("beforeLLM and afterLLM fire once; tool hooks never", async () => {
    const calls: string[] = [];
    const { llm, client } = setup(
      style,
      [{ toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Oslo" } }] }],
      {
        hooks: {
          beforeLLM: ({ messages, tools, turn }) => {
            calls.push(
              `before:${turn}:${messages.map((m) => m.role).join(",")}:${tools.map((t) => t.name).join(",")}`,
            );
          },
          afterLLM: ({ response, turn }) =>
            void calls.push(`after:${turn}:${response.toolCalls.length}`),
          beforeTool: () => void calls.push("beforeTool"),
          afterTool: () => void calls.push("afterTool"),
        },
      },
    );
    await client.translate({ messages: CONVERSATION, tools: [WEATHER] });
    expect(calls).toEqual([
      "before:0:system,user,assistant,tool,tool,user:get_weather",
      "after:0:1",
    ]);
    expect(llm.bodies).toHaveLength(1);
  });

  it("a beforeLLM hook that rewrites the messages is what is sent", async () => {
    const { llm, client } = setup(style, [{ content: "ok" }], {
      hooks: {
        beforeLLM: ({ messages }) => ({
          messages: [...messages, { role: "user", content: "(hooked)" }],
        }),
      },
    });
    await client.translate({ messages: [{ role: "user", content: "hi" }], system: "S" });
    const body = llm.bodies[0];
    if (style === "openai") {
      expect(body.messages).toEqual([
        { role: "system", content: "S" },
        { role: "user", content: "hi" },
        { role: "user", content: "(hooked)" },
      ]);
    } else {
      expect(body.system).toBe("S");
      expect(body.messages).toEqual([
        {
          role: "user",
          content: [
            { type: "text", text: "hi" },
            { type: "text", text: "(hooked)" },
          ],
        },
      ]);
    }
  });

  it("retries like run() and records metrics", async () => {
    const metrics: MetricEvent[] = [];
    const { llm, client } = setup(style, [{ status: 503, body: "busy" }, { content: "ok" }], {
      onMetric: (e) => metrics.push(e),
    });
    const result = await client.translate({ messages: [{ role: "user", content: "hi" }] });
    expect(result.text).toBe("ok");
    expect(llm.bodies).toHaveLength(2);
    expect(llm.bodies[1]).toEqual(llm.bodies[0]);
    expect(metrics.map((m) => m.type === "llm_request" && m.status)).toEqual(["503", "ok"]);
    expect(client.metrics()).toContain(
      'toolnexus_llm_requests_total{model="tr-model",status="ok"} 1',
    );
  });

  it("a provider error rejects with ProviderError; onError decided on it", async () => {
    const asked: unknown[] = [];
    const { client } = setup(style, [{ status: 400, body: "bad request" }], {
      onError: (info) => void asked.push(info),
    });
    const error = await client
      .translate({ messages: [{ role: "user", content: "hi" }] })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(asked).toEqual([{ status: 400, attempt: 0, retryable: false }]);
  });

  it("a malformed request names the field and never reaches the provider", async () => {
    const { llm, client } = setup(style, [{ content: "unused" }]);
    const error = await client
      .translate({ messages: [{ role: "wizard", content: "hi" } as any] })
      .catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/^translate: messages\[0\]/);
    const bad = await client
      .translate({ messages: [], tools: [{ type: "function", function: {} } as any] })
      .catch((e) => e);
    expect(bad.message).toMatch(/tools\[0\]\.function\.name/);
    expect(llm.bodies).toHaveLength(0);
  });

  it("is stateless: requestParams apply, no systemPrompt is added, nothing is stored", async () => {
    const { llm, client } = setup(style, [{ content: "one" }, { content: "two" }], {
      systemPrompt: "IGNORED",
      requestParams: { temperature: 0.1 },
    });
    await client.translate({ messages: [{ role: "user", content: "a" }] });
    await client.translate({ messages: [{ role: "user", content: "b" }] });
    expect(JSON.stringify(llm.bodies)).not.toContain("IGNORED");
    expect(llm.bodies[0].temperature).toBe(0.1);
    expect(llm.bodies[1].messages).toHaveLength(1);
  });
});

describe("in-process translate", () => {
  it("hands the neutral view to generate and maps the reply", async () => {
    const seen: ModelRequest[] = [];
    const client = createInProcessClient({
      model: "local",
      generate: (request) => {
        seen.push(request);
        return {
          content: "hi",
          toolCalls: [{ id: "x1", name: "get_weather", arguments: { city: "Oslo" } }],
        };
      },
    });
    const result = await client.translate({
      messages: CONVERSATION,
      tools: [WEATHER],
      toolChoice: "required",
      maxTokens: 5,
    });
    expect(result).toEqual({
      text: "hi",
      toolCalls: [{ id: "x1", name: "get_weather", arguments: '{"city":"Oslo"}' }],
      finishReason: "tool_calls",
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      model: "local",
    });
    expect(seen[0]!.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
    ]);
    expect(seen[0]!.messages[3]).toEqual({
      role: "tool",
      toolCallId: "call_1",
      name: "get_weather",
      content: "18C",
    });
    expect(seen[0]!.tools.map((t) => t.name)).toEqual(["get_weather"]);
    expect(seen[0]!.params).toEqual({ max_tokens: 5, tool_choice: "required" });
  });
});
