import * as z from "zod";
import type { ModelDelta, ModelTurn, StreamParser } from "../model";
import { ProviderError, excerpt } from "../../errors";
import { mapOpenAIFinish } from "./finish";
import { newCallId } from "../call-ids";

/** Asks for SSE, with a last chunk that carries the usage. */
export const openaiStreamFlags = () => ({ stream: true, stream_options: { include_usage: true } });

const UsageSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
});

const ChunkSchema = z.looseObject({
  model: z.string().nullish(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().nullish(),
        delta: z
          .looseObject({
            content: z
              .union([z.string(), z.array(z.looseObject({ text: z.string().optional() }))])
              .nullish(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().nullish(),
                  id: z.string().nullish(),
                  function: z
                    .looseObject({ name: z.string().nullish(), arguments: z.string().nullish() })
                    .nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: UsageSchema.nullish(),
});

const ErrorSchema = z.looseObject({
  error: z.looseObject({
    message: z.string().nullish(),
    type: z.string().nullish(),
    code: z.unknown(),
  }),
});

/** Error types a server reports mid-stream that are worth another attempt. */
const RETRYABLE_ERRORS = new Set([
  "server_error",
  "rate_limit_exceeded",
  "overloaded_error",
  "service_unavailable",
]);

/**
 * Chat-completion chunks → one turn. Text arrives in `choices[0].delta.content`; a
 * tool call arrives in pieces keyed by `index` (id and name first, then the
 * arguments text in slices, possibly interleaved with other calls); `finish_reason`
 * comes on the last choice chunk, usage on a chunk of its own, then `[DONE]`.
 * Servers that end without `[DONE]` are accepted once a `finish_reason` was seen.
 */
export function openaiStreamParser(requestedModel: string): StreamParser {
  const text: string[] = [];
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let model: string | undefined;
  let finish: string | undefined;
  let usage: z.infer<typeof UsageSchema> | undefined;
  let done = false;

  return {
    get ended() {
      return done;
    },
    get complete() {
      return done || finish !== undefined;
    },
    push({ data }) {
      if (data.trim() === "[DONE]") {
        done = true;
        return [];
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
      const failure = ErrorSchema.safeParse(json);
      if (failure.success) {
        const { message, type, code } = failure.data.error;
        const kind = type ?? (typeof code === "string" ? code : undefined);
        throw new ProviderError(
          `openai: error in stream: ${message ?? kind ?? "unknown error"}`,
          undefined,
          excerpt(data, 2000),
          kind !== undefined && RETRYABLE_ERRORS.has(kind),
        );
      }
      const chunk = ChunkSchema.safeParse(json);
      if (!chunk.success) {
        throw new ProviderError(
          `openai: unexpected stream chunk: ${excerpt(data)}`,
          undefined,
          excerpt(data, 2000),
        );
      }
      const { choices, usage: chunkUsage, model: chunkModel } = chunk.data;
      if (chunkModel) {
        model = chunkModel;
      }
      if (chunkUsage) {
        usage = chunkUsage;
      }

      const deltas: ModelDelta[] = [];
      for (const choice of choices ?? []) {
        if ((choice.index ?? 0) !== 0) {
          continue;
        }
        const content = choice.delta?.content;
        const piece = Array.isArray(content) ? content.map((p) => p.text ?? "").join("") : content;
        if (piece) {
          text.push(piece);
          deltas.push({ type: "text", text: piece });
        }
        (choice.delta?.tool_calls ?? []).forEach((part, position) => {
          const index = part.index ?? position;
          let call = calls.get(index);
          if (!call) {
            call = { id: "", name: "", arguments: "" };
            calls.set(index, call);
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
        });
        if (choice.finish_reason) {
          finish = choice.finish_reason;
        }
      }
      return deltas;
    },
    finish(): ModelTurn {
      const toolCalls = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, c]) => ({ id: c.id || newCallId(), name: c.name, arguments: c.arguments }));
      const prompt = usage?.prompt_tokens ?? 0;
      const completion = usage?.completion_tokens ?? 0;
      return {
        content: text.length ? text.join("") : null,
        toolCalls,
        finishReason: mapOpenAIFinish(finish, toolCalls.length > 0),
        usage: {
          promptTokens: prompt,
          completionTokens: completion,
          totalTokens: usage?.total_tokens ?? prompt + completion,
        },
        model: model ?? requestedModel,
      };
    },
  };
}
