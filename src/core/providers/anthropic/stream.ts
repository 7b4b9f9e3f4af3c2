import * as z from "zod";
import type { ModelDelta, ModelTurn, StreamParser } from "../model";
import { ProviderError, excerpt } from "../../errors";
import { mapAnthropicFinish } from "./finish";
import { newCallId } from "../call-ids";

export const anthropicStreamFlags = () => ({ stream: true });

const UsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
});

const EventSchema = z.looseObject({
  type: z.string().optional(),
  index: z.number().nullish(),
  message: z.looseObject({ model: z.string().nullish(), usage: UsageSchema.nullish() }).nullish(),
  content_block: z
    .looseObject({
      type: z.string(),
      text: z.string().nullish(),
      id: z.string().nullish(),
      name: z.string().nullish(),
      input: z.unknown().optional(),
    })
    .nullish(),
  delta: z
    .looseObject({
      type: z.string().nullish(),
      text: z.string().nullish(),
      partial_json: z.string().nullish(),
      stop_reason: z.string().nullish(),
    })
    .nullish(),
  usage: UsageSchema.nullish(),
  error: z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

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
export function anthropicStreamParser(requestedModel: string): StreamParser {
  const blocks = new Map<number, Block>();
  let model: string | undefined;
  let stopReason: string | undefined;
  let inputTokens = 0;
  let outputTokens = 0;
  let stopped = false;

  return {
    get ended() {
      return stopped;
    },
    get complete() {
      return stopped;
    },
    push({ event, data }) {
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
      const parsed = EventSchema.safeParse(json);
      if (!parsed.success) {
        throw new ProviderError(
          `anthropic: unexpected stream event: ${excerpt(data)}`,
          undefined,
          excerpt(data, 2000),
        );
      }
      const e = parsed.data;
      const deltas: ModelDelta[] = [];
      // The `type` in the data is authoritative; some proxies drop the `event:` line.
      switch (e.type ?? event) {
        case "message_start":
          if (e.message?.model) {
            model = e.message.model;
          }
          inputTokens = e.message?.usage?.input_tokens ?? inputTokens;
          outputTokens = e.message?.usage?.output_tokens ?? outputTokens;
          break;
        case "content_block_start": {
          const block = e.content_block;
          const index = e.index ?? blocks.size;
          if (block?.type === "text") {
            blocks.set(index, { kind: "text", text: block.text ?? "" });
            if (block.text) {
              deltas.push({ type: "text", text: block.text });
            }
          } else if (block?.type === "tool_use") {
            blocks.set(index, {
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
          const block = blocks.get(e.index ?? blocks.size - 1);
          if (e.delta?.type === "text_delta" && block?.kind === "text" && e.delta.text) {
            block.text += e.delta.text;
            deltas.push({ type: "text", text: e.delta.text });
          } else if (e.delta?.type === "input_json_delta" && block?.kind === "tool_use") {
            block.json += e.delta.partial_json ?? "";
          }
          break;
        }
        case "message_delta":
          if (e.delta?.stop_reason) {
            stopReason = e.delta.stop_reason;
          }
          // Cumulative counts: the last one wins.
          inputTokens = e.usage?.input_tokens ?? inputTokens;
          outputTokens = e.usage?.output_tokens ?? outputTokens;
          break;
        case "message_stop":
          stopped = true;
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
      return deltas;
    },
    finish(): ModelTurn {
      const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
      const text = ordered.filter((b) => b.kind === "text").map((b) => b.text);
      const toolCalls = ordered.flatMap((b) =>
        b.kind === "tool_use"
          ? [{ id: b.id || newCallId(), name: b.name, arguments: toolArguments(b) }]
          : [],
      );
      return {
        content: text.length ? text.join("") : null,
        toolCalls,
        finishReason: mapAnthropicFinish(stopReason, toolCalls.length > 0),
        usage: {
          promptTokens: inputTokens,
          completionTokens: outputTokens,
          totalTokens: inputTokens + outputTokens,
        },
        model: model ?? requestedModel,
      };
    },
  };
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
