/**
 * A scripted model on 127.0.0.1 that speaks both wire styles the client uses, so LLM_*
 * can be tried without keys: `POST …/chat/completions` (OpenAI) and `POST …/messages`
 * (Anthropic), each as one JSON reply or, with `stream: true` (the edge always asks for
 * it), as Server-Sent Events with usage where the client reads it. No randomness beyond
 * call ids, no network beyond the socket it listens on.
 *
 * What it answers (deterministic, from the last message):
 * - a user message with `call <tool> {json}` in it: that tool call, those arguments;
 * - a user message naming a tool offered (`refund` → refund_order): a call of the tool that
 *   shares most words with the message, arguments guessed from its schema (a number after
 *   `$` for a number, another number for a string ending in id/Id/number, else the text);
 * - a tool result (or no tool fits): text — "The tool said: …", or, for a refusal
 *   (`declined/expired: …`), "Understood: that was not done (…)".
 */
import { createServer } from "node:http";

const MODEL = "fake-model";

/** The reply to one request body: `{ text, toolCalls: [{ id, name, args }] }`. */
export function scriptedReply(style, body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages.at(-1) ?? {};
  const tools = toolsOf(style, body?.tools);
  const result = toolResultOf(style, last);
  if (result !== undefined) {
    const first = result.split("\n")[0];
    return {
      text: first.startsWith("declined/expired:")
        ? `Understood: that was not done (${result.split("\n").slice(1).join(" ") || first}).`
        : `The tool said: ${first}`,
      toolCalls: [],
    };
  }
  const text = textOf(last.content);
  const call = chooseCall(text, tools);
  if (call) {
    return { text: "", toolCalls: [{ id: `call_${messages.length}_${randomTag()}`, ...call }] };
  }
  return { text: `You said: ${text || "(nothing)"}`, toolCalls: [] };
}

function chooseCall(text, tools) {
  const explicit = /\bcall\s+([A-Za-z0-9_-]+)\s*(\{[\s\S]*\})?/.exec(text);
  if (explicit && tools.some((t) => t.name === explicit[1])) {
    let args = {};
    try {
      args = explicit[2] ? JSON.parse(explicit[2]) : {};
    } catch {
      args = {};
    }
    return { name: explicit[1], args };
  }
  const words = new Set(text.toLowerCase().match(/[a-z]+/g) ?? []);
  let best;
  let bestScore = 0;
  for (const tool of tools) {
    const parts = tool.name.toLowerCase().split(/[_-]+/);
    // The leading word is the verb ("refund_order"): it counts double.
    const score = parts.reduce((n, part, i) => n + (words.has(part) ? (i === 0 ? 2 : 1) : 0), 0);
    if (score > bestScore) {
      best = tool;
      bestScore = score;
    }
  }
  return best && { name: best.name, args: guessArgs(text, best.schema) };
}

function guessArgs(text, schema) {
  const dollars = /\$\s?(\d+(?:\.\d+)?)/.exec(text)?.[1];
  const plain = text.replace(/\$\s?\d+(?:\.\d+)?/g, "").match(/\d+/)?.[0];
  const args = {};
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const type = property?.type;
    if (type === "number" || type === "integer") {
      const value = dollars ?? plain;
      if (value !== undefined) {
        args[name] = Number(value);
      }
    } else if (type === "string") {
      args[name] = /(id|number)$/i.test(name) && plain !== undefined ? plain : text;
    }
  }
  return args;
}

function toolsOf(style, tools) {
  if (!Array.isArray(tools)) {
    return [];
  }
  return tools.map((t) =>
    style === "openai"
      ? { name: t.function?.name, schema: t.function?.parameters }
      : { name: t.name, schema: t.input_schema },
  );
}

function toolResultOf(style, message) {
  if (style === "openai") {
    return message.role === "tool" ? textOf(message.content) : undefined;
  }
  const blocks = Array.isArray(message.content) ? message.content : [];
  const results = blocks.filter((b) => b?.type === "tool_result");
  return results.length ? results.map((b) => textOf(b.content)).join("\n") : undefined;
}

function textOf(content) {
  if (typeof content === "string") {
    return content;
  }
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  }
  return "";
}

const randomTag = () => Math.random().toString(16).slice(2, 10);

/** Token counts: words in, words out (any stable number will do for a fake). */
function usageOf(body, reply) {
  const input = JSON.stringify(body?.messages ?? []).split(/\s+/).length;
  const output = Math.max(
    1,
    reply.text.split(/\s+/).filter(Boolean).length + reply.toolCalls.length,
  );
  return { input, output };
}

function openaiJson(body, reply) {
  const { input, output } = usageOf(body, reply);
  return {
    id: `chatcmpl_${randomTag()}`,
    object: "chat.completion",
    model: MODEL,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text || null,
          ...(reply.toolCalls.length ? { tool_calls: reply.toolCalls.map(openaiCall) } : {}),
        },
        finish_reason: reply.toolCalls.length ? "tool_calls" : "stop",
      },
    ],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  };
}

const openaiCall = (call) => ({
  id: call.id,
  type: "function",
  function: { name: call.name, arguments: JSON.stringify(call.args) },
});

/** OpenAI chunks: text in pieces, each call's arguments split in two, usage on its own chunk. */
function* openaiEvents(body, reply) {
  const chunk = (delta, finish = null) => ({
    id: "chatcmpl_fake",
    object: "chat.completion.chunk",
    model: MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  for (const piece of reply.text.match(/.{1,8}/gs) ?? []) {
    yield chunk({ content: piece });
  }
  for (const [index, call] of reply.toolCalls.entries()) {
    const args = JSON.stringify(call.args);
    const half = Math.ceil(args.length / 2);
    yield chunk({
      tool_calls: [
        { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
      ],
    });
    yield chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] });
    yield chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] });
  }
  yield chunk({}, reply.toolCalls.length ? "tool_calls" : "stop");
  if (body.stream_options?.include_usage) {
    const { input, output } = usageOf(body, reply);
    yield {
      id: "chatcmpl_fake",
      object: "chat.completion.chunk",
      model: MODEL,
      choices: [],
      usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
    };
  }
}

function anthropicJson(body, reply) {
  const { input, output } = usageOf(body, reply);
  return {
    id: `msg_${randomTag()}`,
    type: "message",
    role: "assistant",
    model: MODEL,
    content: [
      ...(reply.text ? [{ type: "text", text: reply.text }] : []),
      ...reply.toolCalls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
    ],
    stop_reason: reply.toolCalls.length ? "tool_use" : "end_turn",
    usage: { input_tokens: input, output_tokens: output },
  };
}

/** Anthropic events: message_start (input tokens), blocks, message_delta (output tokens), stop. */
function* anthropicEvents(body, reply) {
  const { input, output } = usageOf(body, reply);
  yield [
    "message_start",
    {
      type: "message_start",
      message: {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [],
        usage: { input_tokens: input, output_tokens: 1 },
      },
    },
  ];
  let index = 0;
  if (reply.text) {
    yield [
      "content_block_start",
      { type: "content_block_start", index, content_block: { type: "text", text: "" } },
    ];
    for (const piece of reply.text.match(/.{1,8}/gs) ?? []) {
      yield [
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } },
      ];
    }
    yield ["content_block_stop", { type: "content_block_stop", index }];
    index += 1;
  }
  for (const call of reply.toolCalls) {
    yield [
      "content_block_start",
      {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
      },
    ];
    yield [
      "content_block_delta",
      {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(call.args) },
      },
    ];
    yield ["content_block_stop", { type: "content_block_stop", index }];
    index += 1;
  }
  yield [
    "message_delta",
    {
      type: "message_delta",
      delta: { stop_reason: reply.toolCalls.length ? "tool_use" : "end_turn" },
      usage: { output_tokens: output },
    },
  ];
  yield ["message_stop", { type: "message_stop" }];
}

/** Which style a path asks for, or undefined (404). */
export function styleOfPath(pathname) {
  if (pathname.endsWith("/chat/completions")) {
    return "openai";
  }
  return pathname.endsWith("/messages") ? "anthropic" : undefined;
}

/**
 * Listens on 127.0.0.1 (`port` 0: any free port). Resolves to `{ url, port, close() }`;
 * `url` is the origin, the base URLs are `${url}/v1` for either style.
 */
export function startFakeModel({ port = 0, host = "127.0.0.1", log = () => {}, delayMs = 0 } = {}) {
  const server = createServer(async (request, response) => {
    if (delayMs > 0) {
      // A slow model (bench/recovery.mjs): a drive is mid-turn for this long.
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    const style = styleOfPath(new URL(request.url ?? "/", "http://x").pathname);
    if (request.method !== "POST" || !style) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "POST …/chat/completions or …/messages" } }));
      return;
    }
    let body;
    try {
      const chunks = [];
      for await (const chunk of request) {
        chunks.push(chunk);
      }
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "body is not JSON" } }));
      return;
    }
    const reply = scriptedReply(style, body);
    log(
      `${style}${body.stream ? " (stream)" : ""}: ${reply.toolCalls.length ? `call ${reply.toolCalls.map((c) => c.name).join(", ")}` : JSON.stringify(reply.text)}`,
    );
    if (!body.stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify(style === "openai" ? openaiJson(body, reply) : anthropicJson(body, reply)),
      );
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (style === "openai") {
      for (const event of openaiEvents(body, reply)) {
        response.write(`data: ${JSON.stringify(event)}\n\n`);
      }
      response.end("data: [DONE]\n\n");
    } else {
      for (const [name, event] of anthropicEvents(body, reply)) {
        response.write(`event: ${name}\ndata: ${JSON.stringify(event)}\n\n`);
      }
      response.end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const { port: bound } = server.address();
      resolve({
        url: `http://${host}:${bound}`,
        port: bound,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
