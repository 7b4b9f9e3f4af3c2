import type { ModelTurn } from "../model";
import { ProviderError, excerpt } from "../../errors";
import { mapOpenAIFinish } from "./finish";
import { newCallId } from "../call-ids";
import { firstItemProblem, isObject, isOptionalObject, isOptionalString, usageProblem, type JsonObject } from "../shape";

/** A chat-completion reply, as far as the loop reads it (checked by `replyProblem`). */
interface OpenAIReply {
  model?: string | null;
  choices: Array<{
    message?: {
      content?: string | Array<{ text?: string }> | null;
      tool_calls?: Array<{ id?: string | null; function: { name: string; arguments?: string | JsonObject | null } }> | null;
    } | null;
    finish_reason?: string | null;
  }>;
  usage?: { prompt_tokens?: number | null; completion_tokens?: number | null; total_tokens?: number | null } | null;
}

export function parseOpenAIResponse(json: unknown, requestedModel: string): ModelTurn {
  const problem = replyProblem(json);
  if (problem !== undefined) {
    throw new ProviderError(`openai: unexpected response shape (${problem}): ${excerpt(JSON.stringify(json))}`);
  }
  const reply = json as OpenAIReply;
  const choice = reply.choices[0];
  if (!choice) throw new ProviderError(`openai: response has no choices: ${excerpt(JSON.stringify(json))}`);
  const message = choice.message ?? {};
  const toolCalls = (message.tool_calls ?? []).map((c) => ({
    id: c.id || newCallId(),
    name: c.function.name,
    arguments:
      typeof c.function.arguments === "string" ? c.function.arguments : JSON.stringify(c.function.arguments ?? {}),
  }));
  const content = Array.isArray(message.content)
    ? message.content.map((p) => p.text ?? "").join("")
    : message.content ?? null;
  const usage = reply.usage;
  const prompt = usage?.prompt_tokens ?? 0;
  const completion = usage?.completion_tokens ?? 0;
  return {
    content,
    toolCalls,
    finishReason: mapOpenAIFinish(choice.finish_reason, toolCalls.length > 0),
    usage: { promptTokens: prompt, completionTokens: completion, totalTokens: usage?.total_tokens ?? prompt + completion },
    model: reply.model ?? requestedModel,
    raw: json,
  };
}

// Lenient: providers that claim compatibility differ in what they omit. Unknown keys are
// ignored; a key the loop reads must have the right type when present.

function replyProblem(json: unknown): string | undefined {
  if (!isObject(json)) return "expected an object";
  if (!isOptionalString(json.model)) return "model: expected a string";
  if (!Array.isArray(json.choices)) return "choices: expected an array";
  const choice = firstItemProblem(json.choices, choiceProblem);
  if (choice !== undefined) return `choices${choice}`;
  const usage = usageProblem(json.usage, ["prompt_tokens", "completion_tokens", "total_tokens"]);
  return usage === undefined ? undefined : `usage${usage}`;
}

function choiceProblem(choice: unknown): string | undefined {
  if (!isObject(choice)) return ": expected an object";
  if (!isOptionalString(choice.finish_reason)) return ".finish_reason: expected a string";
  const message = choice.message;
  if (!isOptionalObject(message)) return ".message: expected an object";
  if (!message) return undefined;
  const content = contentProblem(message.content);
  if (content !== undefined) return `.message.content${content}`;
  const calls = message.tool_calls;
  if (calls === undefined || calls === null) return undefined;
  if (!Array.isArray(calls)) return ".message.tool_calls: expected an array";
  const call = firstItemProblem(calls, toolCallProblem);
  return call === undefined ? undefined : `.message.tool_calls${call}`;
}

/** A string, text parts (`[{ text? }]`), or nothing. */
function contentProblem(content: unknown): string | undefined {
  if (isOptionalString(content)) return undefined;
  if (!Array.isArray(content)) return ": expected a string or an array of parts";
  return firstItemProblem(content, (part) =>
    !isObject(part) ? ": expected an object" : part.text !== undefined && typeof part.text !== "string" ? ".text: expected a string" : undefined,
  );
}

function toolCallProblem(call: unknown): string | undefined {
  if (!isObject(call)) return ": expected an object";
  if (!isOptionalString(call.id)) return ".id: expected a string";
  const fn = call.function;
  if (!isObject(fn)) return ".function: expected an object";
  if (typeof fn.name !== "string") return ".function.name: expected a string";
  if (!isOptionalString(fn.arguments) && !isObject(fn.arguments)) return ".function.arguments: expected a string or an object";
  return undefined;
}
