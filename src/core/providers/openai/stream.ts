import type { ModelTurn, StreamParser } from "../model";
import { ProviderError, excerpt } from "../../errors";
import {
  firstItemProblem,
  isObject,
  isOptionalNumber,
  isOptionalObject,
  isOptionalString,
  type JsonObject,
  usageProblem,
} from "../shape";
import { mapOpenAIFinish } from "./finish";
import { newCallId } from "../call-ids";

/** Asks for SSE, with a last chunk that carries the usage. */
export const openaiStreamFlags = () => ({ stream: true, stream_options: { include_usage: true } });

const USAGE_FIELDS = ["prompt_tokens", "completion_tokens", "total_tokens"] as const;

/** Error types a server reports mid-stream that are worth another attempt. */
const RETRYABLE_ERRORS = new Set([
  "server_error",
  "rate_limit_exceeded",
  "overloaded_error",
  "service_unavailable",
]);

interface ToolCallPiece {
  index?: number | null;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}
interface Choice {
  index?: number | null;
  delta?: {
    content?: string | Array<{ text?: string }> | null;
    tool_calls?: ToolCallPiece[] | null;
  } | null;
  finish_reason?: string | null;
}
interface Chunk {
  model?: string | null;
  choices?: Choice[] | null;
  usage?: {
    prompt_tokens?: number | null;
    completion_tokens?: number | null;
    total_tokens?: number | null;
  } | null;
}

/**
 * Checked by hand, once per chunk (a stream has dozens): the same shape the zod schema
 * used to accept, extra keys allowed. Returns the first problem, or undefined.
 */
function chunkProblem(json: unknown): string | undefined {
  if (!isObject(json)) {
    return ": expected an object";
  }
  if (!isOptionalString(json.model)) {
    return ".model: expected a string";
  }
  const { choices } = json;
  if (choices !== undefined && choices !== null) {
    if (!Array.isArray(choices)) {
      return ".choices: expected an array";
    }
    const problem = firstItemProblem(choices, choiceProblem);
    if (problem !== undefined) {
      return `.choices${problem}`;
    }
  }
  const usage = usageProblem(json.usage, USAGE_FIELDS);
  return usage === undefined ? undefined : `.usage${usage}`;
}

function choiceProblem(choice: unknown): string | undefined {
  if (!isObject(choice)) {
    return ": expected an object";
  }
  if (!isOptionalNumber(choice.index)) {
    return ".index: expected a number";
  }
  if (!isOptionalString(choice.finish_reason)) {
    return ".finish_reason: expected a string";
  }
  const { delta } = choice;
  if (delta === undefined || delta === null) {
    return undefined;
  }
  if (!isObject(delta)) {
    return ".delta: expected an object";
  }
  const { content, tool_calls: calls } = delta;
  if (Array.isArray(content)) {
    const problem = firstItemProblem(content, (part) =>
      isObject(part) && (part.text === undefined || typeof part.text === "string")
        ? undefined
        : ": expected a text part",
    );
    if (problem !== undefined) {
      return `.delta.content${problem}`;
    }
  } else if (!isOptionalString(content)) {
    return ".delta.content: expected a string or parts";
  }
  if (calls === undefined || calls === null) {
    return undefined;
  }
  if (!Array.isArray(calls)) {
    return ".delta.tool_calls: expected an array";
  }
  const problem = firstItemProblem(calls, toolCallProblem);
  return problem === undefined ? undefined : `.delta.tool_calls${problem}`;
}

function toolCallProblem(call: unknown): string | undefined {
  if (!isObject(call)) {
    return ": expected an object";
  }
  if (!isOptionalNumber(call.index)) {
    return ".index: expected a number";
  }
  if (!isOptionalString(call.id)) {
    return ".id: expected a string";
  }
  const fn = call.function;
  if (!isOptionalObject(fn)) {
    return ".function: expected an object";
  }
  if (fn && !isOptionalString(fn.name)) {
    return ".function.name: expected a string";
  }
  if (fn && !isOptionalString(fn.arguments)) {
    return ".function.arguments: expected a string";
  }
  return undefined;
}

/** An `{ error: { message?, type?, code? } }` chunk, as OpenAI-compatible servers send mid-stream. */
function streamError(json: unknown): JsonObject | undefined {
  if (!isObject(json) || !isObject(json.error)) {
    return undefined;
  }
  const { error } = json;
  return isOptionalString(error.message) && isOptionalString(error.type) ? error : undefined;
}

/**
 * Chat-completion chunks → one turn. Text arrives in `choices[0].delta.content`; a
 * tool call arrives in pieces keyed by `index` (id and name first, then the
 * arguments text in slices, possibly interleaved with other calls); `finish_reason`
 * comes on the last choice chunk, usage on a chunk of its own, then `[DONE]`.
 * Servers that end without `[DONE]` are accepted once a `finish_reason` was seen.
 */
export const openaiStreamParser = (requestedModel: string): StreamParser =>
  new OpenAIStreamParser(requestedModel);

// A class, not an object literal with getters: a literal defines its accessors anew for
// every parser (two per model call), a class once on its prototype.
class OpenAIStreamParser implements StreamParser {
  #text: string[] = [];
  #calls = new Map<number, { id: string; name: string; arguments: string }>();
  #model: string | undefined;
  #finish: string | undefined;
  #usage: Chunk["usage"];
  #done = false;

  constructor(readonly requestedModel: string) {}

  get ended() {
    return this.#done;
  }

  get complete() {
    return this.#done || this.#finish !== undefined;
  }

  push({ data }: { data: string }, onText: (text: string) => void): void {
    // Only a short payload can be the end marker: no trim() of every chunk.
    if (data.length < 16 && data.trim() === "[DONE]") {
      this.#done = true;
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw new ProviderError(
        `openai: stream chunk is not JSON: ${excerpt(data)}`,
        undefined,
        excerpt(data, 2000),
      );
    }
    const failure = streamError(json);
    if (failure) {
      const { message, type, code } = failure as {
        message?: string | null;
        type?: string | null;
        code?: unknown;
      };
      const kind = type ?? (typeof code === "string" ? code : undefined);
      throw new ProviderError(
        `openai: error in stream: ${message ?? kind ?? "unknown error"}`,
        undefined,
        excerpt(data, 2000),
        kind !== undefined && RETRYABLE_ERRORS.has(kind),
      );
    }
    const problem = chunkProblem(json);
    if (problem !== undefined) {
      throw new ProviderError(
        `openai: unexpected stream chunk (${problem.replace(/^\./, "")}): ${excerpt(data)}`,
        undefined,
        excerpt(data, 2000),
      );
    }
    const { choices, usage: chunkUsage, model: chunkModel } = json as Chunk;
    if (chunkModel) {
      this.#model = chunkModel;
    }
    if (chunkUsage) {
      this.#usage = chunkUsage;
    }
    if (!choices) {
      return;
    }
    for (let c = 0; c < choices.length; c++) {
      const choice = choices[c] as Choice;
      if ((choice.index ?? 0) !== 0) {
        continue;
      }
      const delta = choice.delta;
      const content = delta?.content;
      const piece = Array.isArray(content) ? content.map((p) => p.text ?? "").join("") : content;
      if (piece) {
        this.#text.push(piece);
        onText(piece);
      }
      const parts = delta?.tool_calls;
      for (let position = 0; parts && position < parts.length; position++) {
        const part = parts[position] as ToolCallPiece;
        const index = part.index ?? position;
        let call = this.#calls.get(index);
        if (!call) {
          call = { id: "", name: "", arguments: "" };
          this.#calls.set(index, call);
        }
        // id and name come whole on a call's first piece; later pieces only add argument text.
        if (part.id && !call.id) {
          call.id = part.id;
        }
        if (part.function?.name && !call.name) {
          call.name = part.function.name;
        }
        if (part.function?.arguments) {
          call.arguments += part.function.arguments;
        }
      }
      if (choice.finish_reason) {
        this.#finish = choice.finish_reason;
      }
    }
  }

  finish(): ModelTurn {
    const toolCalls = [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id || newCallId(), name: c.name, arguments: c.arguments }));
    const usage = this.#usage;
    const prompt = usage?.prompt_tokens ?? 0;
    const completion = usage?.completion_tokens ?? 0;
    return {
      content: this.#text.length ? this.#text.join("") : null,
      toolCalls,
      finishReason: mapOpenAIFinish(this.#finish, toolCalls.length > 0),
      usage: {
        promptTokens: prompt,
        completionTokens: completion,
        totalTokens: usage?.total_tokens ?? prompt + completion,
      },
      model: this.#model ?? this.requestedModel,
    };
  }
}
