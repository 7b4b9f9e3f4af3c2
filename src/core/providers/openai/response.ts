import type { ToolCall } from "../../types";
import type { ModelTurn } from "../model";
import { ProviderError, excerpt } from "../../errors";
import { mapOpenAIFinish } from "./finish";
import { newCallId } from "../call-ids";
import {
  isObject,
  isOptionalNumber,
  isOptionalObject,
  isOptionalString,
  type JsonObject,
} from "../shape";

/**
 * A chat-completion reply → one turn, checked in the same pass that reads it: this runs
 * on every model response, between network waits, so it is one function with no
 * closures. Lenient, as providers that claim compatibility differ in what they omit:
 * unknown keys and choices after the first are ignored; a key the loop reads must have
 * the right type when present, or the reply is refused naming the first problem.
 */
export function parseOpenAIResponse(json: unknown, requestedModel: string): ModelTurn {
  if (!isObject(json)) {
    throw shapeError("expected an object", json);
  }
  const model = json.model;
  if (!isOptionalString(model)) {
    throw shapeError("model: expected a string", json);
  }
  const choices = json.choices;
  if (!Array.isArray(choices)) {
    throw shapeError("choices: expected an array", json);
  }
  if (choices.length === 0) {
    throw new ProviderError(`openai: response has no choices: ${excerpt(JSON.stringify(json))}`);
  }
  const choice: unknown = choices[0];
  if (!isObject(choice)) {
    throw shapeError("choices[0]: expected an object", json);
  }
  const finish = choice.finish_reason;
  if (!isOptionalString(finish)) {
    throw shapeError("choices[0].finish_reason: expected a string", json);
  }
  const message = choice.message;
  if (!isOptionalObject(message)) {
    throw shapeError("choices[0].message: expected an object", json);
  }

  let content: string | null = null;
  const toolCalls: ToolCall[] = [];
  if (message) {
    const raw = message.content;
    if (typeof raw === "string") {
      content = raw;
    } else if (Array.isArray(raw)) {
      content = partsText(raw, json);
    } else if (raw !== undefined && raw !== null) {
      throw shapeError("choices[0].message.content: expected a string or an array of parts", json);
    }
    const calls = message.tool_calls;
    if (calls !== undefined && calls !== null) {
      if (!Array.isArray(calls)) {
        throw shapeError("choices[0].message.tool_calls: expected an array", json);
      }
      for (let i = 0; i < calls.length; i++) {
        toolCalls.push(toolCall(calls[i], i, json));
      }
    }
  }

  const usage = json.usage;
  if (!isOptionalObject(usage)) {
    throw shapeError("usage: expected an object", json);
  }
  const prompt = usage ? tokens(usage, "prompt_tokens", json) : undefined;
  const completion = usage ? tokens(usage, "completion_tokens", json) : undefined;
  const total = usage ? tokens(usage, "total_tokens", json) : undefined;
  return {
    content,
    toolCalls,
    finishReason: mapOpenAIFinish(finish, toolCalls.length > 0),
    usage: {
      promptTokens: prompt ?? 0,
      completionTokens: completion ?? 0,
      totalTokens: total ?? (prompt ?? 0) + (completion ?? 0),
    },
    model: model ?? requestedModel,
    raw: json,
  };
}

function toolCall(call: unknown, i: number, json: unknown): ToolCall {
  const at = `choices[0].message.tool_calls[${i}]`;
  if (!isObject(call)) {
    throw shapeError(`${at}: expected an object`, json);
  }
  if (!isOptionalString(call.id)) {
    throw shapeError(`${at}.id: expected a string`, json);
  }
  const fn = call.function;
  if (!isObject(fn)) {
    throw shapeError(`${at}.function: expected an object`, json);
  }
  if (typeof fn.name !== "string") {
    throw shapeError(`${at}.function.name: expected a string`, json);
  }
  const args = fn.arguments;
  if (!isOptionalString(args) && !isObject(args)) {
    throw shapeError(`${at}.function.arguments: expected a string or an object`, json);
  }
  return {
    id: call.id || newCallId(),
    name: fn.name,
    arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
  };
}

/** Text parts (`[{ text? }]`) joined; parts without text add nothing. */
function partsText(parts: unknown[], json: unknown): string {
  let text = "";
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (!isObject(part)) {
      throw shapeError(`choices[0].message.content[${i}]: expected an object`, json);
    }
    if (typeof part.text === "string") {
      text += part.text;
    } else if (part.text !== undefined) {
      throw shapeError(`choices[0].message.content[${i}].text: expected a string`, json);
    }
  }
  return text;
}

function tokens(usage: JsonObject, key: string, json: unknown): number | undefined {
  const value = usage[key];
  if (!isOptionalNumber(value)) {
    throw shapeError(`usage.${key}: expected a number`, json);
  }
  return value ?? undefined;
}

function shapeError(problem: string, json: unknown): ProviderError {
  return new ProviderError(
    `openai: unexpected response shape (${problem}): ${excerpt(JSON.stringify(json))}`,
  );
}
