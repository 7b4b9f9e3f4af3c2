/**
 * Streaming fakes for tests: SSE bodies in the exact shape OpenAI and Anthropic send
 * them (built from a small script, or written out as recorded fixtures), served by an
 * injected `fetch` that delivers the bytes in chunks cut wherever a test says —
 * inside a line, inside a multi-byte character, between CR and LF — and that can
 * end a body early or fail it mid-read.
 */
import { scriptedFetch, type RawReply, type Style } from "./fake-llm";

export interface StreamScript {
  /** Text, in the pieces the provider sends it. */
  text?: string[];
  /** Tool calls; `args` is the JSON text in the slices it arrives in. */
  toolCalls?: Array<{ id: string; name: string; args: string[] }>;
  /** OpenAI only: send the calls' slices round-robin (index 0, 1, 0, 1, …) as parallel calls arrive. */
  interleave?: boolean;
  finish?: string;
  usage?: { prompt: number; completion: number };
  model?: string;
}

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

/** A chat-completions stream: role chunk, content deltas, tool-call deltas by index, finish chunk, usage chunk, [DONE]. */
export function openaiStream(script: StreamScript): string {
  const model = script.model ?? "fake-model";
  const usage = script.usage ?? { prompt: 4, completion: 2 };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      usage: null,
    });
  let out = chunk({ role: "assistant", content: "", refusal: null });
  for (const piece of script.text ?? []) {
    out += chunk({ content: piece });
  }
  const calls = script.toolCalls ?? [];
  const openers = calls.map((c, index) =>
    chunk({
      tool_calls: [
        { index, id: c.id, type: "function", function: { name: c.name, arguments: "" } },
      ],
    }),
  );
  const slices = calls.map((c, index) =>
    c.args.map((a) => chunk({ tool_calls: [{ index, function: { arguments: a } }] })),
  );
  if (script.interleave) {
    out += openers.join("");
    for (let i = 0; slices.some((s) => i < s.length); i++) {
      for (const s of slices) {
        out += s[i] ?? "";
      }
    }
  } else {
    calls.forEach((_, i) => {
      out += openers[i]! + slices[i]!.join("");
    });
  }
  out += chunk({}, script.finish ?? (calls.length ? "tool_calls" : "stop"));
  out += sse({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model,
    choices: [],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
    },
  });
  return `${out}data: [DONE]\n\n`;
}

/** A Messages-API stream: message_start, a ping, one block per text/tool_use with its deltas, message_delta, message_stop. */
export function anthropicStream(script: StreamScript): string {
  const model = script.model ?? "fake-model";
  const usage = script.usage ?? { prompt: 4, completion: 2 };
  let out = sse(
    {
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.prompt, output_tokens: 1 },
      },
    },
    "message_start",
  );
  let index = 0;
  if (script.text?.length) {
    out += sse(
      { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      "content_block_start",
    );
    out += sse({ type: "ping" }, "ping");
    for (const piece of script.text) {
      out += sse(
        { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } },
        "content_block_delta",
      );
    }
    out += sse({ type: "content_block_stop", index }, "content_block_stop");
    index++;
  }
  for (const call of script.toolCalls ?? []) {
    out += sse(
      {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
      },
      "content_block_start",
    );
    for (const slice of call.args) {
      out += sse(
        {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: slice },
        },
        "content_block_delta",
      );
    }
    out += sse({ type: "content_block_stop", index }, "content_block_stop");
    index++;
  }
  out += sse(
    {
      type: "message_delta",
      delta: {
        stop_reason: script.finish ?? (script.toolCalls?.length ? "tool_use" : "end_turn"),
        stop_sequence: null,
      },
      usage: { output_tokens: usage.completion },
    },
    "message_delta",
  );
  return out + sse({ type: "message_stop" }, "message_stop");
}

export const streamFor = (style: Style, script: StreamScript) =>
  style === "openai" ? openaiStream(script) : anthropicStream(script);

/** Cuts `text` into JSON-text slices of at most `size` characters: a tool call's arguments as they stream. */
export function slices(text: string, size = 3): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) {
    out.push(text.slice(i, i + size));
  }
  return out;
}

export interface SseReply {
  sse: string;
  /** Byte offsets to cut the body at; `"bytes"` sends one byte per chunk. Default: one chunk. */
  splitAt?: number[] | "bytes";
  /** Close the body cleanly after this many bytes (a cut stream). */
  cutAt?: number;
  /** Fail the body with a network error after this many bytes. */
  failAt?: number;
  headers?: Record<string, string>;
}

export type SseStep =
  | SseReply
  | RawReply
  | Error
  | ((body: any, index: number) => SseReply | RawReply);

/** Byte chunks of `bytes`, cut at the given offsets. */
export function chunksOf(bytes: Uint8Array, splitAt: number[] | "bytes" = []): Uint8Array[] {
  const offsets =
    splitAt === "bytes"
      ? Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)
      : [...splitAt].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const offset of [...offsets, bytes.length]) {
    if (offset <= start || offset > bytes.length) {
      continue;
    }
    chunks.push(bytes.slice(start, offset));
    start = offset;
  }
  return chunks;
}

/** A body that delivers `chunks` one read at a time, then closes — or errors, when `error` is given. */
export function chunkedBody(chunks: Uint8Array[], error?: Error): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[i++];
      if (next) {
        controller.enqueue(next);
      } else if (error) {
        controller.error(error);
      } else {
        controller.close();
      }
    },
  });
}

export function sseBody(reply: SseReply): ReadableStream<Uint8Array> {
  let bytes = new TextEncoder().encode(reply.sse);
  const limit = reply.failAt ?? reply.cutAt;
  if (limit !== undefined) {
    bytes = bytes.slice(0, limit);
  }
  const chunks = chunksOf(
    bytes,
    reply.splitAt === "bytes" ? "bytes" : (reply.splitAt ?? []).filter((o) => o < bytes.length),
  );
  return chunkedBody(
    chunks,
    reply.failAt !== undefined ? new TypeError("network connection lost") : undefined,
  );
}

export interface FakeStreamLlm {
  fetch: typeof fetch;
  bodies: any[];
  urls: string[];
}

/** An injected `fetch` answering each call with the next step: an SSE body, a raw reply, or a thrown error. */
export function fakeStreamLlm(steps: SseStep[]): FakeStreamLlm {
  return scriptedFetch<SseReply>(
    "fake stream LLM",
    steps,
    (step) =>
      new Response(sseBody(step), {
        status: 200,
        headers: { "content-type": "text/event-stream; charset=utf-8", ...step.headers },
      }),
  );
}
