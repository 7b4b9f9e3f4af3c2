/**
 * SSE parsing of both providers' streams, below the client: recorded-style fixtures
 * cut at every byte offset, inside multi-byte characters, between CR and LF, with
 * keep-alive comments; what counts as a whole reply, and what is an error.
 */
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../src/core";
import { readSseEvents } from "../../src/core/streaming/sse";
import { wireStyle } from "../../src/core/providers";
import { chunkedBody, chunksOf } from "../helpers/fake-sse";
import type { Style } from "../helpers/fake-llm";

// Recorded-style fixtures: the shapes (ids, fingerprints, null usage on content chunks,
// the empty-choices usage chunk, ping, partial_json "") are what the providers send.
const OPENAI_TEXT = `${[
  `data: {"id":"chatcmpl-B9x","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`,
  `data: {"id":"chatcmpl-B9x","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":"Voilà"},"logprobs":null,"finish_reason":null}],"usage":null}`,
  `: keep-alive`,
  `data: {"id":"chatcmpl-B9x","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":", 日本"},"logprobs":null,"finish_reason":null}],"usage":null}`,
  `data: {"id":"chatcmpl-B9x","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":" 👋 café"},"logprobs":null,"finish_reason":null}],"usage":null}`,
  `data: {"id":"chatcmpl-B9x","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
  `data: {"id":"chatcmpl-B9x","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":7,"total_tokens":26,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`,
  `data: [DONE]`,
].join("\n\n")}\n\n`;

// Two parallel calls, their argument slices interleaved by index.
const OPENAI_TOOLS = `${[
  `data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_weather01","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}],"usage":null}`,
  `data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_time0002","type":"function","function":{"name":"get_time","arguments":""}}]},"finish_reason":null}],"usage":null}`,
  `data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"ci"}}]},"finish_reason":null}],"usage":null}`,
  `data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\\"tz\\": "}}]},"finish_reason":null}],"usage":null}`,
  `data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\\": \\"Zürich"}}]},"finish_reason":null}],"usage":null}`,
  `data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\\"Asia/東京\\"}"}}]},"finish_reason":null}],"usage":null}`,
  `data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"}"}}]},"finish_reason":null}],"usage":null}`,
  `data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}`,
  `data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-2024-08-06","choices":[],"usage":{"prompt_tokens":81,"completion_tokens":40,"total_tokens":121}}`,
  `data: [DONE]`,
].join("\n\n")}\n\n`;

const ANTHROPIC_TEXT = `${[
  `event: message_start\ndata: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`,
  `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
  `event: ping\ndata: {"type": "ping"}`,
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Voilà"}}`,
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", 日本"}}`,
  `: keep-alive`,
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" 👋 café"}}`,
  `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}`,
  `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`,
  `event: message_stop\ndata: {"type":"message_stop"}`,
].join("\n\n")}\n\n`;

const ANTHROPIC_TOOLS = `${[
  `event: message_start\ndata: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2},"content":[],"stop_reason":null}}`,
  `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
  `event: ping\ndata: {"type": "ping"}`,
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking "}}`,
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Zürich."}}`,
  `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}`,
  `event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}`,
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`,
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Z"}}`,
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ürich\\", \\"unit\\""}}`,
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":": \\"c\\"}"}}`,
  `event: content_block_stop\ndata: {"type":"content_block_stop","index":1}`,
  `event: content_block_start\ndata: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_02Abc","name":"get_time","input":{}}}`,
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"tz\\":\\"Asia/東京\\"}"}}`,
  `event: content_block_stop\ndata: {"type":"content_block_stop","index":2}`,
  `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}`,
  `event: message_stop\ndata: {"type":"message_stop"}`,
].join("\n\n")}\n\n`;

const TEXT = "Voilà, 日本 👋 café";
const FIXTURES: Record<Style, { text: string; tools: string }> = {
  openai: { text: OPENAI_TEXT, tools: OPENAI_TOOLS },
  anthropic: { text: ANTHROPIC_TEXT, tools: ANTHROPIC_TOOLS },
};

const encode = (s: string) => new TextEncoder().encode(s);

/** Feeds the chunks through the SSE reader and the style's parser, as the client does. */
async function parse(style: Style, chunks: Uint8Array[], error?: Error) {
  const parser = wireStyle(style).streamParser("requested-model");
  const deltas: string[] = [];
  await readSseEvents(chunkedBody(chunks, error), undefined, (event) => {
    parser.push(event, (text) => deltas.push(text));
    return parser.ended;
  });
  return { deltas, complete: parser.complete, turn: parser.finish() };
}

/** Byte offsets that fall inside a multi-byte character of `text` (after its first byte). */
function insideMultiByte(text: string): number[] {
  const offsets: number[] = [];
  let byte = 0;
  for (const ch of text) {
    const size = encode(ch).length;
    for (let k = 1; k < size; k++) {
      offsets.push(byte + k);
    }
    byte += size;
  }
  return offsets;
}

describe.each<Style>(["openai", "anthropic"])("%s stream parsing", (style) => {
  const { text: textFixture, tools: toolsFixture } = FIXTURES[style];

  it("assembles the recorded text stream: deltas in order, usage, finish, model", async () => {
    const { deltas, complete, turn } = await parse(style, [encode(textFixture)]);
    expect(deltas.join("")).toBe(TEXT);
    expect(deltas.length).toBe(3);
    expect(complete).toBe(true);
    expect(turn.content).toBe(TEXT);
    expect(turn.toolCalls).toEqual([]);
    expect(turn.finishReason).toBe("stop");
    if (style === "openai") {
      expect(turn.usage).toEqual({ promptTokens: 19, completionTokens: 7, totalTokens: 26 });
      expect(turn.model).toBe("gpt-4o-mini-2024-07-18");
    } else {
      expect(turn.usage).toEqual({ promptTokens: 25, completionTokens: 7, totalTokens: 32 });
      expect(turn.model).toBe("claude-sonnet-4-20250514");
    }
  });

  it("the text stream cut into two chunks at every byte offset gives the same result", async () => {
    const bytes = encode(textFixture);
    const whole = await parse(style, [bytes]);
    for (let k = 1; k < bytes.length; k++) {
      const split = await parse(style, chunksOf(bytes, [k]));
      expect(split.deltas.join(""), `split at ${k}`).toBe(TEXT);
      expect(split.turn, `split at ${k}`).toEqual(whole.turn);
    }
  });

  it("one byte per chunk gives the same result, for text and for tool calls", async () => {
    for (const fixture of [textFixture, toolsFixture]) {
      const bytes = encode(fixture);
      const whole = await parse(style, [bytes]);
      const bytewise = await parse(style, chunksOf(bytes, "bytes"));
      expect(bytewise.turn).toEqual(whole.turn);
      expect(bytewise.deltas.join("")).toBe(whole.deltas.join(""));
    }
  });

  it("cuts inside é, 日本 and 👋 (every inner byte at once) never garble a character", async () => {
    const bytes = encode(textFixture);
    const offsets = insideMultiByte(textFixture);
    expect(offsets.length).toBeGreaterThan(8);
    const { deltas, turn } = await parse(style, chunksOf(bytes, offsets));
    expect(deltas.join("")).toBe(TEXT);
    expect(turn.content).not.toContain("\uFFFD");
  });

  it("CRLF line endings, cut at every offset (including between CR and LF)", async () => {
    const crlf = encode(textFixture.replace(/\n/g, "\r\n"));
    const whole = await parse(style, [encode(textFixture)]);
    for (let k = 1; k < crlf.length; k++) {
      const split = await parse(style, chunksOf(crlf, [k]));
      expect(split.turn, `split at ${k}`).toEqual(whole.turn);
    }
  });

  it("assembles tool calls split across many deltas, in provider order, at every split offset", async () => {
    const bytes = encode(toolsFixture);
    const whole = await parse(style, [bytes]);
    const expected =
      style === "openai"
        ? [
            { id: "call_weather01", name: "get_weather", args: { city: "Zürich" } },
            { id: "call_time0002", name: "get_time", args: { tz: "Asia/東京" } },
          ]
        : [
            {
              id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
              name: "get_weather",
              args: { city: "Zürich", unit: "c" },
            },
            { id: "toolu_02Abc", name: "get_time", args: { tz: "Asia/東京" } },
          ];
    expect(
      whole.turn.toolCalls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.arguments) })),
    ).toEqual(expected);
    expect(whole.turn.finishReason).toBe("tool_calls");
    expect(whole.turn.content).toBe(style === "openai" ? null : "Checking Zürich.");
    for (let k = 1; k < bytes.length; k += 7) {
      expect((await parse(style, chunksOf(bytes, [k]))).turn, `split at ${k}`).toEqual(whole.turn);
    }
  });

  it("a body that ends before the final event is not complete", async () => {
    // Everything up to (not including) the event that finishes the reply.
    const marker = style === "openai" ? '"finish_reason":"stop"' : "event: message_delta";
    const end = textFixture.lastIndexOf("\n\n", textFixture.indexOf(marker)) + 2;
    const { complete, deltas } = await parse(style, [encode(textFixture.slice(0, end))]);
    expect(complete).toBe(false);
    expect(deltas.length).toBeGreaterThan(0);
  });

  it("an event cut mid-line at the end of the body is dropped, not parsed as half a JSON", async () => {
    const bytes = encode(textFixture);
    const lastDelta = textFixture.indexOf("👋");
    const cut = bytes.slice(0, encode(textFixture.slice(0, lastDelta)).length);
    const { complete, deltas } = await parse(style, [cut]);
    expect(complete).toBe(false);
    expect(deltas.join("")).toBe("Voilà, 日本");
  });

  it("a read error surfaces from the reader as it happened", async () => {
    const bytes = encode(textFixture);
    await expect(
      parse(style, [bytes.slice(0, 300)], new TypeError("network connection lost")),
    ).rejects.toThrow("network connection lost");
  });
});

describe("stream endings and errors", () => {
  it("openai: a server that omits [DONE] is complete once a finish_reason came", async () => {
    const noDone = OPENAI_TEXT.replace("data: [DONE]\n\n", "");
    const { complete, turn } = await parse("openai", [encode(noDone)]);
    expect(complete).toBe(true);
    expect(turn.content).toBe(TEXT);
  });

  it("openai: stops reading at [DONE]", async () => {
    const { turn } = await parse("openai", [
      encode(`${OPENAI_TEXT}data: {"choices":[{"index":0,"delta":{"content":"ignored"}}]}\n\n`),
    ]);
    expect(turn.content).toBe(TEXT);
  });

  it("openai: an error chunk is a ProviderError (retryable for server errors)", async () => {
    const body = `data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}\n\n`;
    const error = await parse("openai", [encode(body)]).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toContain("The server had an error");
    expect(error.retryable).toBe(true);
  });

  it("openai: a chunk that is not JSON is a ProviderError", async () => {
    const error = await parse("openai", [encode("data: {not json\n\n")]).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(/not JSON/);
    expect(error.retryable).toBe(false);
  });

  it("anthropic: an error event is a ProviderError; overloaded is retryable, invalid_request is not", async () => {
    const overloaded = `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;
    const e1 = await parse("anthropic", [encode(overloaded)]).catch((e) => e);
    expect(e1).toBeInstanceOf(ProviderError);
    expect(e1.message).toContain("Overloaded");
    expect(e1.retryable).toBe(true);
    const invalid = `event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}\n\n`;
    const e2 = await parse("anthropic", [encode(invalid)]).catch((e) => e);
    expect(e2.retryable).toBe(false);
  });

  it("anthropic: unknown events and thinking blocks are ignored", async () => {
    const withThinking = ANTHROPIC_TEXT.replace(
      "event: content_block_start",
      `event: content_block_start\ndata: {"type":"content_block_start","index":5,"content_block":{"type":"thinking","thinking":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":5,"delta":{"type":"thinking_delta","thinking":"hmm"}}\n\nevent: brand_new_event\ndata: {"type":"brand_new_event"}\n\nevent: content_block_start`,
    );
    const { turn } = await parse("anthropic", [encode(withThinking)]);
    expect(turn.content).toBe(TEXT);
  });

  it("anthropic: a tool_use with no input deltas keeps the input it started with", async () => {
    const body = `${[
      `event: message_start\ndata: {"type":"message_start","message":{"model":"m","usage":{"input_tokens":1,"output_tokens":1}}}`,
      `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"noargs","input":{}}}`,
      `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}`,
      `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`,
      `event: message_stop\ndata: {"type":"message_stop"}`,
    ].join("\n\n")}\n\n`;
    const { turn } = await parse("anthropic", [encode(body)]);
    expect(turn.toolCalls).toEqual([{ id: "t1", name: "noargs", arguments: "{}" }]);
  });
});

describe("stream chunks are checked by hand, as strictly as the zod schemas were", () => {
  const openaiBad: Array<[string, unknown]> = [
    ["a non-object chunk", [1, 2]],
    ["model a number", { model: 5, choices: [] }],
    ["choices an object", { choices: {} }],
    ["a choice that is a string", { choices: ["x"] }],
    ["index a string", { choices: [{ index: "0", delta: {} }] }],
    ["finish_reason a number", { choices: [{ delta: {}, finish_reason: 1 }] }],
    ["delta an array", { choices: [{ delta: [] }] }],
    ["content a number", { choices: [{ delta: { content: 7 } }] }],
    ["a content part with null text", { choices: [{ delta: { content: [{ text: null }] } }] }],
    ["tool_calls an object", { choices: [{ delta: { tool_calls: {} } }] }],
    ["a tool call id a number", { choices: [{ delta: { tool_calls: [{ index: 0, id: 1 }] } }] }],
    ["function a string", { choices: [{ delta: { tool_calls: [{ function: "f" }] } }] }],
    [
      "arguments an object",
      { choices: [{ delta: { tool_calls: [{ function: { arguments: {} } }] } }] },
    ],
    ["usage a string", { choices: [], usage: "lots" }],
    ["a token count a string", { choices: [], usage: { prompt_tokens: "4" } }],
  ];
  const openaiGood: Array<[string, unknown]> = [
    ["everything null", { model: null, choices: null, usage: null }],
    [
      "nulls inside",
      {
        choices: [
          {
            index: null,
            delta: { content: null, tool_calls: [{ index: null, id: null, function: null }] },
            finish_reason: null,
          },
        ],
      },
    ],
    ["content parts", { choices: [{ delta: { content: [{ text: "a" }, { type: "x" }] } }] }],
    [
      "extra keys",
      { choices: [{ delta: { role: "assistant", extra: [1] } }], system_fingerprint: 1 },
    ],
  ];
  const anthropicBad: Array<[string, unknown]> = [
    ["a non-object event", "x"],
    ["type null", { type: null }],
    ["index a string", { type: "content_block_delta", index: "0" }],
    ["message a string", { type: "message_start", message: "m" }],
    ["message.model a number", { type: "message_start", message: { model: 1 } }],
    ["message.usage a string", { type: "message_start", message: { usage: "u" } }],
    ["a block without a type", { type: "content_block_start", content_block: { text: "a" } }],
    [
      "block text a number",
      { type: "content_block_start", content_block: { type: "text", text: 1 } },
    ],
    [
      "delta text a number",
      { type: "content_block_delta", delta: { type: "text_delta", text: 1 } },
    ],
    ["stop_reason a number", { type: "message_delta", delta: { stop_reason: 1 } }],
    ["usage tokens a string", { type: "message_delta", usage: { output_tokens: "3" } }],
    ["error a string", { type: "error", error: "bad" }],
  ];
  const anthropicGood: Array<[string, unknown]> = [
    ["a ping", { type: "ping" }],
    ["no type", { index: 0 }],
    [
      "nulls inside",
      {
        type: "message_delta",
        index: null,
        message: null,
        content_block: null,
        delta: { type: null, text: null, partial_json: null, stop_reason: null },
        usage: null,
        error: null,
      },
    ],
    [
      "a tool_use block with any input",
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: "n", input: [1, "x"] },
      },
    ],
  ];
  const push = (style: Style, data: unknown) =>
    wireStyle(style)
      .streamParser("m")
      .push({ data: JSON.stringify(data) }, () => {});

  it.each(openaiBad)("openai refuses %s", (_name, chunk) => {
    expect(() => push("openai", chunk)).toThrow(/unexpected stream chunk/);
  });
  it.each(openaiGood)("openai accepts %s", (_name, chunk) => {
    expect(() => push("openai", chunk)).not.toThrow();
  });
  it.each(anthropicBad)("anthropic refuses %s", (_name, event) => {
    expect(() => push("anthropic", event)).toThrow(/unexpected stream event/);
  });
  it.each(anthropicGood)("anthropic accepts %s", (_name, event) => {
    expect(() => push("anthropic", event)).not.toThrow();
  });
  it("a refusal names where the problem is", () => {
    expect(() =>
      push("openai", { choices: [{ delta: { tool_calls: [{ index: 0, id: 1 }] } }] }),
    ).toThrow(/choices\[0\]\.delta\.tool_calls\[0\]\.id: expected a string/);
  });
});
