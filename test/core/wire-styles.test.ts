/**
 * The two wire styles end to end through `createClient` with a scripted fetch:
 * what goes out (URL, headers, body) and how replies — good and malformed — are read.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ProviderError,
  createClient,
  createToolkit,
  defineTool,
  type ClientOptions,
  type Toolkit,
} from "../../src/core";
import { assertBalanced, fakeLlm, type Step, type Style } from "../helpers/fake-llm";

const STYLES: Style[] = ["openai", "anthropic"];

function client(style: Style, steps: Step[], extra: Partial<ClientOptions> = {}) {
  const fake = fakeLlm(style, steps);
  const c = createClient({
    baseUrl: "https://llm.test/v1",
    style,
    model: "test-model",
    apiKey: "sk-test",
    fetch: fake.fetch,
    ...extra,
  });
  return { fake, client: c };
}

function echoToolkit(runs: unknown[] = []): Promise<Toolkit> {
  return createToolkit({
    tools: [
      defineTool({
        name: "echo",
        description: "Echo the text back",
        inputSchema: z.object({ text: z.string() }),
        run: ({ text }) => {
          runs.push(text);
          return `echo:${text}`;
        },
      }),
      defineTool({
        name: "boom",
        description: "Always fails",
        run: () => {
          throw new Error("kaboom");
        },
      }),
    ],
  });
}

const emptyToolkit = () => createToolkit({ tools: [] });

/** The tool results a request carried, in either style's shape, normalized. */
function toolResults(
  style: Style,
  body: any,
): Array<{ id: string; content: string; isError: boolean }> {
  const out: Array<{ id: string; content: string; isError: boolean }> = [];
  for (const m of body.messages) {
    if (style === "openai" && m.role === "tool") {
      out.push({ id: m.tool_call_id, content: m.content, isError: false });
    }
    if (style === "anthropic" && Array.isArray(m.content)) {
      for (const b of m.content) {
        if (b.type === "tool_result") {
          out.push({ id: b.tool_use_id, content: b.content, isError: b.is_error === true });
        }
      }
    }
  }
  return out;
}

describe("URLs", () => {
  const cases: Array<[Style, string, string]> = [
    ["openai", "https://api.example.com/v1", "https://api.example.com/v1/chat/completions"],
    ["openai", "https://api.example.com/v1/", "https://api.example.com/v1/chat/completions"],
    ["openai", "http://localhost:8080", "http://localhost:8080/chat/completions"],
    ["anthropic", "https://api.anthropic.com", "https://api.anthropic.com/v1/messages"],
    ["anthropic", "https://api.anthropic.com/", "https://api.anthropic.com/v1/messages"],
    ["anthropic", "https://api.anthropic.com/v1", "https://api.anthropic.com/v1/messages"],
    ["anthropic", "https://api.anthropic.com/v1/", "https://api.anthropic.com/v1/messages"],
    [
      "anthropic",
      "https://gateway.test/proxy/anthropic",
      "https://gateway.test/proxy/anthropic/v1/messages",
    ],
  ];
  it.each(cases)("%s with baseUrl %s posts to %s", async (style, baseUrl, expected) => {
    const { fake, client: c } = client(style, [{ content: "hi" }], { baseUrl });
    await c.run("hello", { toolkit: await emptyToolkit() });
    expect(fake.urls).toEqual([expected]);
  });
});

describe("headers", () => {
  it("openai sends a Bearer token and JSON content type", async () => {
    const { fake, client: c } = client("openai", [{ content: "hi" }]);
    await c.run("hello", { toolkit: await emptyToolkit() });
    const h = fake.headers[0]!;
    expect(h.get("authorization")).toBe("Bearer sk-test");
    expect(h.get("content-type")).toBe("application/json");
    expect(h.get("x-api-key")).toBeNull();
  });

  it("anthropic sends x-api-key and anthropic-version, no Bearer", async () => {
    const { fake, client: c } = client("anthropic", [{ content: "hi" }]);
    await c.run("hello", { toolkit: await emptyToolkit() });
    const h = fake.headers[0]!;
    expect(h.get("x-api-key")).toBe("sk-test");
    expect(h.get("anthropic-version")).toBe("2023-06-01");
    expect(h.get("authorization")).toBeNull();
  });

  it.each(STYLES)("%s: no auth header at all without an apiKey", async (style) => {
    const { fake, client: c } = client(style, [{ content: "hi" }], { apiKey: undefined });
    await c.run("hello", { toolkit: await emptyToolkit() });
    expect(fake.headers[0]!.get("authorization")).toBeNull();
    expect(fake.headers[0]!.get("x-api-key")).toBeNull();
  });

  it.each(STYLES)("%s: extra headers are sent on every call", async (style) => {
    const { fake, client: c } = client(
      style,
      [{ toolCalls: [{ id: "c1", name: "echo", args: { text: "a" } }] }, { content: "ok" }],
      {
        headers: { "x-org": "acme", "x-trace": "t-1" },
      },
    );
    await c.run("hello", { toolkit: await echoToolkit() });
    expect(fake.headers).toHaveLength(2);
    for (const h of fake.headers) {
      expect(h.get("x-org")).toBe("acme");
      expect(h.get("x-trace")).toBe("t-1");
    }
  });

  it("an extra header replaces the built-in one of the same name, whatever its case", async () => {
    // A gateway token passed as `Authorization` must be sent as given, not comma-joined with the Bearer key.
    const { fake, client: c } = client("openai", [{ content: "hi" }], {
      headers: { Authorization: "Bearer gateway-token" },
    });
    await c.run("hello", { toolkit: await emptyToolkit() });
    expect(fake.headers[0]!.get("authorization")).toBe("Bearer gateway-token");
  });
});

describe.each(STYLES)("%s request body", (style) => {
  it("omits tools and tool_choice when the toolkit is empty", async () => {
    const { fake, client: c } = client(style, [{ content: "hi" }], {
      bodyTransform: (body) => (body.tools ? { ...body, tool_choice: "auto" } : body),
    });
    await c.run("hello", { toolkit: await emptyToolkit() });
    expect(fake.bodies[0]).not.toHaveProperty("tools");
    expect(fake.bodies[0]).not.toHaveProperty("tool_choice");
  });

  it("sends tools in the style's shape, with openai's tool_choice auto (requestParams cannot set one)", async () => {
    const { fake, client: c } = client(style, [{ content: "hi" }], {
      requestParams: { tool_choice: "required" },
    });
    await c.run("hello", { toolkit: await echoToolkit() });
    const body = fake.bodies[0];
    // Issue 40: as the reference clients, openai sends tool_choice "auto" with tools.
    if (style === "openai") {
      expect(body.tool_choice).toBe("auto");
    } else {
      expect(body).not.toHaveProperty("tool_choice");
    }
    expect(body.tools).toHaveLength(2);
    const schema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
    if (style === "openai") {
      expect(body.tools[0]).toEqual({
        type: "function",
        function: {
          name: "echo",
          description: "Echo the text back",
          parameters: expect.objectContaining(schema),
        },
      });
    } else {
      expect(body.tools[0]).toEqual({
        name: "echo",
        description: "Echo the text back",
        input_schema: expect.objectContaining(schema),
      });
    }
  });

  it("merges requestParams into the body", async () => {
    const { fake, client: c } = client(style, [{ content: "hi" }], {
      requestParams: { temperature: 0.2, max_tokens: 77, top_p: 0.9 },
    });
    await c.run("hello", { toolkit: await emptyToolkit() });
    expect(fake.bodies[0]).toMatchObject({
      model: "test-model",
      temperature: 0.2,
      max_tokens: 77,
      top_p: 0.9,
    });
  });

  it("applies bodyTransform (returned body, with style and turn)", async () => {
    const seen: Array<{ style: string; turn: number }> = [];
    const { fake, client: c } = client(
      style,
      [{ toolCalls: [{ id: "c1", name: "echo", args: { text: "a" } }] }, { content: "ok" }],
      {
        bodyTransform: (body, info) => {
          seen.push(info);
          return { ...body, metadata: { user_id: "u-1" }, stamp: info.turn };
        },
      },
    );
    await c.run("hello", { toolkit: await echoToolkit() });
    expect(seen).toEqual([
      { style, turn: 0 },
      { style, turn: 1 },
    ]);
    expect(fake.bodies.map((b) => b.stamp)).toEqual([0, 1]);
    expect(fake.bodies[0].metadata).toEqual({ user_id: "u-1" });
  });

  it("applies a bodyTransform that mutates in place and returns nothing", async () => {
    const { fake, client: c } = client(style, [{ content: "hi" }], {
      bodyTransform: (body) => {
        body.mutated = true;
      },
    });
    await c.run("hello", { toolkit: await emptyToolkit() });
    expect(fake.bodies[0].mutated).toBe(true);
    expect(fake.bodies[0].model).toBe("test-model");
  });

  it("places the system prompt where the style wants it", async () => {
    const { fake, client: c } = client(style, [{ content: "hi" }], { systemPrompt: "Be terse." });
    await c.run("hello", { toolkit: await emptyToolkit() });
    const body = fake.bodies[0];
    if (style === "openai") {
      expect(body.messages[0]).toEqual({ role: "system", content: "Be terse." });
      expect(body.messages[1]).toEqual({ role: "user", content: "hello" });
      expect(body).not.toHaveProperty("system");
    } else {
      expect(body.system).toBe("Be terse.");
      expect(body.messages.every((m: any) => m.role !== "system")).toBe(true);
      expect(body.messages[0]).toEqual({
        role: "user",
        content: [{ type: "text", text: "hello" }],
      });
    }
  });
});

describe("tool results on the wire", () => {
  it("openai: one {role:'tool', tool_call_id, content} message per call", async () => {
    const { fake, client: c } = client("openai", [
      {
        toolCalls: [
          { id: "c1", name: "echo", args: { text: "a" } },
          { id: "c2", name: "boom" },
        ],
      },
      { content: "done" },
    ]);
    await c.run("hello", { toolkit: await echoToolkit() });
    const tools = fake.bodies[1].messages.filter((m: any) => m.role === "tool");
    expect(tools).toEqual([
      { role: "tool", tool_call_id: "c1", content: "echo:a" },
      { role: "tool", tool_call_id: "c2", content: expect.stringContaining("kaboom") },
    ]);
    const assistant = fake.bodies[1].messages.find((m: any) => m.role === "assistant");
    expect(assistant.tool_calls.map((t: any) => [t.id, t.type, t.function.name])).toEqual([
      ["c1", "function", "echo"],
      ["c2", "function", "boom"],
    ]);
    expect(JSON.parse(assistant.tool_calls[0].function.arguments)).toEqual({ text: "a" });
    assertBalanced("openai", fake.bodies[1]);
  });

  it("anthropic: one user turn of tool_result blocks, is_error only on errors", async () => {
    const { fake, client: c } = client("anthropic", [
      {
        content: "Let me check.",
        toolCalls: [
          { id: "tu1", name: "echo", args: { text: "a" } },
          { id: "tu2", name: "boom" },
        ],
      },
      { content: "done" },
    ]);
    await c.run("hello", { toolkit: await echoToolkit() });
    const messages = fake.bodies[1].messages;
    expect(messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1].content).toEqual([
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "tu1", name: "echo", input: { text: "a" } },
      { type: "tool_use", id: "tu2", name: "boom", input: {} },
    ]);
    expect(messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "tu1", content: "echo:a" },
      {
        type: "tool_result",
        tool_use_id: "tu2",
        content: expect.stringContaining("kaboom"),
        is_error: true,
      },
    ]);
    assertBalanced("anthropic", fake.bodies[1]);
  });
});

describe.each(STYLES)("%s run result", (style) => {
  it("sums usage across turns and reports the provider's model", async () => {
    const { client: c } = client(style, [
      {
        toolCalls: [{ id: "c1", name: "echo", args: { text: "a" } }],
        usage: { prompt: 10, completion: 3 },
      },
      {
        toolCalls: [{ id: "c2", name: "echo", args: { text: "b" } }],
        usage: { prompt: 20, completion: 5 },
      },
      { content: "all done", usage: { prompt: 30, completion: 7 } },
    ]);
    const result = await c.run("hello", { toolkit: await echoToolkit() });
    expect(result.status).toBe("done");
    expect(result.text).toBe("all done");
    expect(result.turns).toBe(3);
    expect(result.usage).toEqual({ promptTokens: 60, completionTokens: 15, totalTokens: 75 });
    expect(result.model).toBe("fake-model");
    expect(result.toolCallCount).toBe(2);
    expect(result.toolCalls.map((t) => [t.id, t.name, t.output, t.isError])).toEqual([
      ["c1", "echo", "echo:a", false],
      ["c2", "echo", "echo:b", false],
    ]);
  });

  it("sends the configured model and falls back to it when the reply names none", async () => {
    const reply =
      style === "openai"
        ? { choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] }
        : {
            type: "message",
            role: "assistant",
            content: [{ type: "text", text: "hi" }],
            stop_reason: "end_turn",
          };
    const { fake, client: c } = client(style, [
      { status: 200, body: JSON.stringify(reply), headers: { "content-type": "application/json" } },
    ]);
    const result = await c.run("hello", { toolkit: await emptyToolkit() });
    expect(fake.bodies[0].model).toBe("test-model");
    expect(result.model).toBe("test-model");
    expect(result.text).toBe("hi");
    expect(result.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
  });

  it("a length finish is incomplete with limit 'length'", async () => {
    const finish = style === "openai" ? "length" : "max_tokens";
    const { client: c } = client(style, [{ content: "truncated answ", finish }]);
    const result = await c.run("hello", { toolkit: await emptyToolkit() });
    expect(result.status).toBe("incomplete");
    expect(result.limit).toBe("length");
    expect(result.text).toBe("truncated answ");
  });

  it("maxTurns ends the run as incomplete with limit 'maxTurns'", async () => {
    const call = (n: number): Step => ({
      toolCalls: [{ id: `c${n}`, name: "echo", args: { text: String(n) } }],
    });
    const { fake, client: c } = client(style, [call(1), call(2), call(3), { content: "never" }], {
      maxTurns: 2,
    });
    const result = await c.run("hello", { toolkit: await echoToolkit() });
    expect(result.status).toBe("incomplete");
    expect(result.limit).toBe("maxTurns");
    expect(result.turns).toBe(2);
    expect(fake.bodies).toHaveLength(2);
    // The last turn's tool calls still got their results: the transcript stays balanced.
    expect(result.messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });
});

describe.each(STYLES)("%s malformed replies", (style) => {
  it("arguments that are not JSON: the tool is not run, the model gets an error, the run continues", async () => {
    const runs: unknown[] = [];
    const { fake, client: c } = client(style, [
      { toolCalls: [{ id: "c1", name: "echo", rawArguments: '{"text": "a"' }] },
      { content: "sorry" },
    ]);
    const result = await c.run("hello", { toolkit: await echoToolkit(runs) });
    expect(runs).toEqual([]);
    expect(result.status).toBe("done");
    expect(result.text).toBe("sorry");
    const [sent] = toolResults(style, fake.bodies[1]);
    expect(sent!.id).toBe("c1");
    expect(sent!.content).toMatch(/invalid arguments for echo/);
    expect(sent!.content).toMatch(/JSON/);
    if (style === "anthropic") {
      expect(sent!.isError).toBe(true);
    }
    expect(result.toolCalls[0]).toMatchObject({ id: "c1", isError: true });
    assertBalanced(style, fake.bodies[1]);
  });

  it("an unknown tool name: an error result naming the tool, the run continues", async () => {
    const { fake, client: c } = client(style, [
      { toolCalls: [{ id: "c1", name: "frobnicate", args: {} }] },
      { content: "ok" },
    ]);
    const result = await c.run("hello", { toolkit: await echoToolkit() });
    expect(result.status).toBe("done");
    const [sent] = toolResults(style, fake.bodies[1]);
    expect(sent!.content).toContain("frobnicate");
    // Issue 40: the loop's standard text, as in the other toolnexus ports.
    expect(sent!.content).toMatch(/^Unknown tool: frobnicate$/m);
    expect(result.toolCalls[0]).toMatchObject({ name: "frobnicate", isError: true });
  });

  it("a body that is not JSON rejects with ProviderError, without retrying", async () => {
    const { fake, client: c } = client(style, [
      { status: 200, body: "<html>gateway says hi</html>" },
      { content: "unused" },
    ]);
    const error = await c.run("hello", { toolkit: await emptyToolkit() }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(/not JSON/);
    expect(error.message).toContain("gateway says hi");
    expect(fake.bodies).toHaveLength(1);
  });

  it("HTTP 400 rejects with ProviderError status 400 and is not retried", async () => {
    const { fake, client: c } = client(style, [
      { status: 400, body: JSON.stringify({ error: { message: "bad field: temperature" } }) },
      { content: "unused" },
    ]);
    const error = await c.run("hello", { toolkit: await emptyToolkit() }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.status).toBe(400);
    expect(error.message).toContain("bad field: temperature");
    expect(error.retryable).toBe(false);
    expect(fake.bodies).toHaveLength(1);
  });
});

describe("malformed reply shapes", () => {
  it("openai: empty choices rejects with a ProviderError that shows what was sent", async () => {
    const reply = { id: "cmpl-x", model: "m", choices: [] };
    const { client: c } = client("openai", [{ status: 200, body: JSON.stringify(reply) }]);
    const error = await c.run("hello", { toolkit: await emptyToolkit() }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(/no choices/);
    expect(error.message).toContain('"choices":[]');
  });

  it("anthropic: a reply without content rejects with a ProviderError that shows what was sent", async () => {
    const reply = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
    const { client: c } = client("anthropic", [{ status: 200, body: JSON.stringify(reply) }]);
    const error = await c.run("hello", { toolkit: await emptyToolkit() }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(/unexpected response shape/);
    expect(error.message).toContain("Overloaded");
  });
});
