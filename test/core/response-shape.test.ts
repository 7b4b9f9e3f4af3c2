/**
 * The reply parsers check shapes by hand (no schema library on the per-response path).
 * These tables pin what they accept and what they reject, with the problem's path.
 */
import { describe, expect, it } from "vitest";
import { parseOpenAIResponse } from "../../src/core/providers/openai/response";
import { parseAnthropicResponse } from "../../src/core/providers/anthropic/response";
import { ProviderError } from "../../src/core/errors";

const call = (over: Record<string, unknown> = {}) => ({
  id: "c1",
  type: "function",
  function: { name: "add", arguments: '{"a":1}' },
  ...over,
});
const openai = (message: unknown, extra: Record<string, unknown> = {}) => ({
  model: "m",
  choices: [{ index: 0, message, finish_reason: "stop" }],
  ...extra,
});

describe("openai replies", () => {
  it("reads text, tool calls, usage and the model", () => {
    const turn = parseOpenAIResponse(
      openai(
        { role: "assistant", content: "hi", tool_calls: [call()] },
        { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
      ),
      "asked",
    );
    expect(turn).toMatchObject({
      content: "hi",
      toolCalls: [{ id: "c1", name: "add", arguments: '{"a":1}' }],
      finishReason: "tool_calls",
      usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
      model: "m",
    });
  });

  it.each([
    [
      "null content and no tool_calls key",
      { role: "assistant", content: null },
      { content: null, toolCalls: [] },
    ],
    ["tool_calls: null", { content: "x", tool_calls: null }, { content: "x", toolCalls: [] }],
    [
      "content as text parts (a part without text adds nothing)",
      { content: [{ type: "text", text: "a" }, { type: "image" }, { text: "b" }] },
      { content: "ab" },
    ],
    [
      "arguments as an object",
      { content: null, tool_calls: [call({ function: { name: "add", arguments: { a: 1 } } })] },
      { toolCalls: [{ arguments: '{"a":1}' }] },
    ],
    [
      "arguments absent",
      { content: null, tool_calls: [call({ function: { name: "add" } })] },
      { toolCalls: [{ arguments: "{}" }] },
    ],
    [
      "an empty id gets a fresh one",
      { content: null, tool_calls: [call({ id: "" })] },
      { toolCalls: [{ id: expect.stringMatching(/^call_/) }] },
    ],
    [
      "id null gets a fresh one",
      { content: null, tool_calls: [call({ id: null })] },
      { toolCalls: [{ id: expect.stringMatching(/^call_/) }] },
    ],
    ["message: null", null, { content: null, toolCalls: [] }],
    [
      "unknown keys are ignored",
      { content: "x", refusal: null, annotations: [], audio: { id: 1 } },
      { content: "x" },
    ],
  ])("accepts %s", (_name, message, expected) => {
    expect(parseOpenAIResponse(openai(message), "asked")).toMatchObject(expected);
  });

  it("falls back to the requested model and to zero usage", () => {
    const turn = parseOpenAIResponse(
      { choices: [{ message: { content: "x" } }], usage: null, model: null },
      "asked",
    );
    expect(turn.model).toBe("asked");
    expect(turn.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    expect(turn.finishReason).toBe("stop");
  });

  it("keeps the reply as `raw`, unknown keys included", () => {
    const reply = { ...openai({ content: "x" }), system_fingerprint: "fp" };
    expect(parseOpenAIResponse(reply, "asked").raw).toBe(reply);
  });

  it.each([
    ["not an object", [1, 2], "expected an object"],
    ["null", null, "expected an object"],
    ["model a number", { model: 1, choices: [] }, "model: expected a string"],
    ["choices missing", { model: "m" }, "choices: expected an array"],
    ["a choice not an object", { choices: ["x"] }, "choices[0]: expected an object"],
    [
      "finish_reason a number",
      { choices: [{ message: {}, finish_reason: 1 }] },
      "choices[0].finish_reason: expected a string",
    ],
    [
      "message a string",
      { choices: [{ message: "hi" }] },
      "choices[0].message: expected an object",
    ],
    [
      "content a number",
      openai({ content: 5 }),
      "choices[0].message.content: expected a string or an array of parts",
    ],
    [
      "a content part's text a number",
      openai({ content: [{ text: 5 }] }),
      "choices[0].message.content[0].text: expected a string",
    ],
    [
      "a content part null",
      openai({ content: [null] }),
      "choices[0].message.content[0]: expected an object",
    ],
    [
      "tool_calls an object",
      openai({ tool_calls: {} }),
      "choices[0].message.tool_calls: expected an array",
    ],
    [
      "a call without a function",
      openai({ tool_calls: [call(), { id: "c2" }] }),
      "choices[0].message.tool_calls[1].function: expected an object",
    ],
    [
      "a call's name missing",
      openai({ tool_calls: [call({ function: { arguments: "{}" } })] }),
      "choices[0].message.tool_calls[0].function.name: expected a string",
    ],
    [
      "a call's arguments a number",
      openai({ tool_calls: [call({ function: { name: "a", arguments: 3 } })] }),
      "choices[0].message.tool_calls[0].function.arguments: expected a string or an object",
    ],
    [
      "a call's id a number",
      openai({ tool_calls: [call({ id: 3 })] }),
      "choices[0].message.tool_calls[0].id: expected a string",
    ],
    ["usage a string", { ...openai({ content: "x" }), usage: "lots" }, "usage: expected an object"],
    [
      "usage tokens as text",
      { ...openai({ content: "x" }), usage: { prompt_tokens: "3" } },
      "usage.prompt_tokens: expected a number",
    ],
  ])("rejects %s, naming the problem", (_name, reply, problem) => {
    let error: unknown;
    try {
      parseOpenAIResponse(reply, "asked");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toContain("openai: unexpected response shape (");
    expect((error as Error).message).toContain(problem);
  });

  it("reads the first choice only; later ones are not checked", () => {
    const turn = parseOpenAIResponse(
      { choices: [{ message: { content: "ok" } }, { message: { content: 1 } }, "junk"] },
      "m",
    );
    expect(turn.content).toBe("ok");
  });

  it("an empty choices array is its own error", () => {
    expect(() => parseOpenAIResponse({ choices: [] }, "m")).toThrow(/no choices/);
  });
});

describe("anthropic replies", () => {
  const reply = (content: unknown, extra: Record<string, unknown> = {}) => ({
    model: "claude",
    content,
    stop_reason: "end_turn",
    ...extra,
  });

  it("reads text blocks, tool_use blocks and usage", () => {
    const turn = parseAnthropicResponse(
      reply(
        [
          { type: "text", text: "a" },
          { type: "thinking", thinking: "…" },
          { type: "text", text: "b" },
          { type: "tool_use", id: "t1", name: "add", input: { a: 1 } },
        ],
        { stop_reason: "tool_use", usage: { input_tokens: 2, output_tokens: 5 } },
      ),
      "asked",
    );
    expect(turn).toMatchObject({
      content: "ab",
      toolCalls: [{ id: "t1", name: "add", arguments: '{"a":1}' }],
      finishReason: "tool_calls",
      usage: { promptTokens: 2, completionTokens: 5, totalTokens: 7 },
      model: "claude",
    });
  });

  it("accepts nulls where the API may send them, and no blocks at all", () => {
    const turn = parseAnthropicResponse(
      { content: [], model: null, stop_reason: null, usage: null },
      "asked",
    );
    expect(turn).toMatchObject({
      content: null,
      toolCalls: [],
      model: "asked",
      usage: { totalTokens: 0 },
    });
  });

  it.each([
    [
      "an error envelope",
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      "content: expected an array",
    ],
    ["a block without a type", reply([{ text: "x" }]), "content[0].type: expected a string"],
    [
      "a text block's text a number",
      reply([{ type: "text", text: 1 }]),
      "content[0].text: expected a string",
    ],
    [
      "a tool_use id a number",
      reply([{ type: "tool_use", id: 1, name: "a", input: {} }]),
      "content[0].id: expected a string",
    ],
    ["stop_reason a number", reply([], { stop_reason: 1 }), "stop_reason: expected a string"],
    [
      "usage tokens as text",
      reply([], { usage: { input_tokens: "1" } }),
      "usage.input_tokens: expected a number",
    ],
  ])("rejects %s, naming the problem", (_name, body, problem) => {
    expect(() => parseAnthropicResponse(body, "asked")).toThrow(ProviderError);
    expect(() => parseAnthropicResponse(body, "asked")).toThrow(problem);
  });
});
