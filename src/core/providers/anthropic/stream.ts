import type { ModelTurn, StreamParser } from "../model";
import { ProviderError, excerpt } from "../../errors";
import {
  isObject,
  isOptionalNumber,
  isOptionalObject,
  isOptionalString,
  usageProblem,
} from "../shape";
import { mapAnthropicFinish } from "./finish";
import { newCallId } from "../call-ids";

export const anthropicStreamFlags = () => ({ stream: true });

const USAGE_FIELDS = ["input_tokens", "output_tokens"] as const;

interface Usage {
  input_tokens?: number | null;
  output_tokens?: number | null;
}
interface StreamEvent {
  type?: string;
  index?: number | null;
  message?: { model?: string | null; usage?: Usage | null } | null;
  content_block?: {
    type: string;
    text?: string | null;
    id?: string | null;
    name?: string | null;
    input?: unknown;
  } | null;
  delta?: {
    type?: string | null;
    text?: string | null;
    partial_json?: string | null;
    stop_reason?: string | null;
  } | null;
  usage?: Usage | null;
  error?: { type?: string | null; message?: string | null } | null;
}

/** Optional object members that must be strings when present. */
function stringsProblem(
  node: Record<string, unknown>,
  fields: readonly string[],
): string | undefined {
  for (const field of fields) {
    if (!isOptionalString(node[field])) {
      return `.${field}: expected a string`;
    }
  }
  return undefined;
}

/**
 * Checked by hand, once per event (a stream has dozens): the same shape the zod schema
 * used to accept, extra keys allowed. Returns the first problem, or undefined.
 */
function eventProblem(json: unknown): string | undefined {
  if (!isObject(json)) {
    return ": expected an object";
  }
  if (json.type !== undefined && typeof json.type !== "string") {
    return ".type: expected a string";
  }
  if (!isOptionalNumber(json.index)) {
    return ".index: expected a number";
  }
  const { message, content_block: block, delta, error } = json;
  if (!isOptionalObject(message)) {
    return ".message: expected an object";
  }
  if (message) {
    const problem =
      (isOptionalString(message.model) ? undefined : ".model: expected a string") ??
      usageProblem(message.usage, USAGE_FIELDS);
    if (problem !== undefined) {
      return `.message${problem}`;
    }
  }
  if (!isOptionalObject(block)) {
    return ".content_block: expected an object";
  }
  if (block) {
    if (typeof block.type !== "string") {
      return ".content_block.type: expected a string";
    }
    const problem = stringsProblem(block, ["text", "id", "name"]);
    if (problem !== undefined) {
      return `.content_block${problem}`;
    }
  }
  if (!isOptionalObject(delta)) {
    return ".delta: expected an object";
  }
  if (delta) {
    const problem = stringsProblem(delta, ["type", "text", "partial_json", "stop_reason"]);
    if (problem !== undefined) {
      return `.delta${problem}`;
    }
  }
  const usage = usageProblem(json.usage, USAGE_FIELDS);
  if (usage !== undefined) {
    return `.usage${usage}`;
  }
  if (!isOptionalObject(error)) {
    return ".error: expected an object";
  }
  const problem = error ? stringsProblem(error, ["type", "message"]) : undefined;
  return problem === undefined ? undefined : `.error${problem}`;
}

/** Error types Anthropic reports mid-stream that are worth another attempt (as their HTTP twins 429/500/529 are). */
const RETRYABLE_ERRORS = new Set(["overloaded_error", "api_error", "rate_limit_error"]);

type Block =
  | { kind: "text"; text: string }
  | { kind: "tool_use"; id: string; name: string; json: string; input: unknown };

/**
 * Messages-API events → one turn: `message_start` (model, input tokens),
 * `content_block_start` (a text block, or a tool_use with id and name),
 * `content_block_delta` (`text_delta`, or `input_json_delta` slices of the
 * arguments), `content_block_stop`, `message_delta` (stop reason, output tokens),
 * `message_stop`. `ping` and unknown events (thinking, …) are ignored; `error` throws.
 */
export const anthropicStreamParser = (requestedModel: string): StreamParser =>
  new AnthropicStreamParser(requestedModel);

// A class, as the openai parser: its accessors are defined once, on the prototype.
class AnthropicStreamParser implements StreamParser {
  #blocks = new Map<number, Block>();
  #model: string | undefined;
  #stopReason: string | undefined;
  #inputTokens = 0;
  #outputTokens = 0;
  #stopped = false;

  constructor(readonly requestedModel: string) {}

  get ended() {
    return this.#stopped;
  }

  get complete() {
    return this.#stopped;
  }

  push(
    { event, data }: { event?: string | undefined; data: string },
    onText: (text: string) => void,
  ): void {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw new ProviderError(
        `anthropic: stream event is not JSON: ${excerpt(data)}`,
        undefined,
        excerpt(data, 2000),
      );
    }
    const problem = eventProblem(json);
    if (problem !== undefined) {
      throw new ProviderError(
        `anthropic: unexpected stream event (${problem.replace(/^\./, "")}): ${excerpt(data)}`,
        undefined,
        excerpt(data, 2000),
      );
    }
    const e = json as StreamEvent;
    // The `type` in the data is authoritative; some proxies drop the `event:` line.
    switch (e.type ?? event) {
      case "message_start":
        if (e.message?.model) {
          this.#model = e.message.model;
        }
        this.#inputTokens = e.message?.usage?.input_tokens ?? this.#inputTokens;
        this.#outputTokens = e.message?.usage?.output_tokens ?? this.#outputTokens;
        break;
      case "content_block_start": {
        const block = e.content_block;
        const index = e.index ?? this.#blocks.size;
        if (block?.type === "text") {
          this.#blocks.set(index, { kind: "text", text: block.text ?? "" });
          if (block.text) {
            onText(block.text);
          }
        } else if (block?.type === "tool_use") {
          this.#blocks.set(index, {
            kind: "tool_use",
            id: block.id ?? "",
            name: block.name ?? "",
            json: "",
            input: block.input,
          });
        }
        break;
      }
      case "content_block_delta": {
        const block = this.#blocks.get(e.index ?? this.#blocks.size - 1);
        if (e.delta?.type === "text_delta" && block?.kind === "text" && e.delta.text) {
          block.text += e.delta.text;
          onText(e.delta.text);
        } else if (e.delta?.type === "input_json_delta" && block?.kind === "tool_use") {
          block.json += e.delta.partial_json ?? "";
        }
        break;
      }
      case "message_delta":
        if (e.delta?.stop_reason) {
          this.#stopReason = e.delta.stop_reason;
        }
        // Cumulative counts: the last one wins.
        this.#inputTokens = e.usage?.input_tokens ?? this.#inputTokens;
        this.#outputTokens = e.usage?.output_tokens ?? this.#outputTokens;
        break;
      case "message_stop":
        this.#stopped = true;
        break;
      case "error": {
        const type = e.error?.type ?? undefined;
        throw new ProviderError(
          `anthropic: error in stream: ${e.error?.message ?? type ?? "unknown error"}`,
          undefined,
          excerpt(data, 2000),
          type !== undefined && RETRYABLE_ERRORS.has(type),
        );
      }
      default:
        // ping, content_block_stop, thinking blocks and anything newer: nothing to assemble.
        break;
    }
  }

  finish(): ModelTurn {
    const ordered = [...this.#blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
    const text = ordered.filter((b) => b.kind === "text").map((b) => b.text);
    const toolCalls = ordered.flatMap((b) =>
      b.kind === "tool_use"
        ? [{ id: b.id || newCallId(), name: b.name, arguments: toolArguments(b) }]
        : [],
    );
    return {
      content: text.length ? text.join("") : null,
      toolCalls,
      finishReason: mapAnthropicFinish(this.#stopReason, toolCalls.length > 0),
      usage: {
        promptTokens: this.#inputTokens,
        completionTokens: this.#outputTokens,
        totalTokens: this.#inputTokens + this.#outputTokens,
      },
      model: this.#model ?? this.requestedModel,
    };
  }
}

/** The streamed JSON text; when no slices came, the input the block started with. */
function toolArguments(block: Extract<Block, { kind: "tool_use" }>): string {
  if (block.json.trim()) {
    return block.json;
  }
  if (typeof block.input === "string") {
    return block.input;
  }
  return JSON.stringify(block.input ?? {});
}
