/**
 * `createInProcessClient`: the client whose model is a local `generate` function (tests,
 * demos, rule-based agents). It turns a `GeneratedMessage` into a model turn and reports
 * the same `llm_request` metric the wire caller does; it cannot stream, so it tells the
 * shared entry points (`build.ts`) why `stream()` refuses.
 */
import type { ToolCall, Usage } from "../types";
import type { FinishReason, ModelRequest, ModelTurn } from "../providers/model";
import type { ModelCaller } from "../loop/run-loop";
import { newCallId } from "../providers/call-ids";
import { buildClient } from "./build";
import type { Client, CommonClientOptions } from "./options";

/** What `generate` returns for `createInProcessClient`: one assistant message. */
export interface GeneratedMessage {
  content?: string | null;
  toolCalls?: Array<{ id?: string; name: string; arguments?: string | Record<string, unknown> }>;
  usage?: Partial<Usage>;
  finishReason?: FinishReason;
}

export interface InProcessClientOptions extends CommonClientOptions {
  generate(request: ModelRequest): Promise<GeneratedMessage> | GeneratedMessage;
}

const IN_PROCESS_STREAM_REFUSAL =
  "createInProcessClient: an in-process client does not support streaming: its model returns a whole answer, not a stream. " +
  "Use run(), or ask() with onText (called once per model turn with that turn's whole text).";

/**
 * A client whose model is a local function (tests, demos, rule-based agents): no wire.
 * `generate` returns whole messages, so `stream()` refuses (its first `next()` throws);
 * `ask()` with `onText` and the `streaming` option get each turn's text whole, once.
 */
export function createInProcessClient(options: InProcessClientOptions): Client {
  if (typeof options.generate !== "function") {
    throw new TypeError("createInProcessClient requires a `generate` function");
  }
  return buildClient(options, (metric) => {
    const call: ModelCaller = async (request) => {
      const started = Date.now();
      try {
        const turn = normalizeGenerated(await options.generate(request), request.model);
        metric({
          type: "llm_request",
          model: request.model,
          status: "ok",
          durationMs: Date.now() - started,
          usage: turn.usage,
        });
        return turn;
      } catch (error) {
        metric({
          type: "llm_request",
          model: request.model,
          status: "error",
          durationMs: Date.now() - started,
        });
        throw error;
      }
    };
    return {
      streamRefusal: IN_PROCESS_STREAM_REFUSAL,
      call,
      translate: (_chat, neutral) => call(neutral, { signal: undefined, turn: 0 }),
    };
  });
}

function normalizeGenerated(message: GeneratedMessage, model: string): ModelTurn {
  const toolCalls: ToolCall[] = (message.toolCalls ?? []).map((c) => ({
    id: c.id || newCallId(),
    name: c.name,
    arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
  }));
  const prompt = message.usage?.promptTokens ?? 0;
  const completion = message.usage?.completionTokens ?? 0;
  return {
    content: message.content ?? null,
    toolCalls,
    finishReason: message.finishReason ?? (toolCalls.length ? "tool_calls" : "stop"),
    usage: {
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: message.usage?.totalTokens ?? prompt + completion,
    },
    model,
  };
}
