import type { ModelTurn } from "../model";
import { ProviderError, excerpt } from "../../errors";
import { mapAnthropicFinish } from "./finish";
import { newCallId } from "../call-ids";
import { firstItemProblem, isObject, isOptionalString, usageProblem } from "../shape";

/** A Messages API reply, as far as the loop reads it (checked by `replyProblem`). */
interface AnthropicReply {
  model?: string | null;
  content: Array<{ type: string; text?: string; id?: string; name?: string; input?: unknown }>;
  stop_reason?: string | null;
  usage?: { input_tokens?: number | null; output_tokens?: number | null } | null;
}

export function parseAnthropicResponse(json: unknown, requestedModel: string): ModelTurn {
  const problem = replyProblem(json);
  if (problem !== undefined) {
    throw new ProviderError(
      `anthropic: unexpected response shape (${problem}): ${excerpt(JSON.stringify(json))}`,
    );
  }
  const reply = json as AnthropicReply;
  const text: string[] = [];
  const toolCalls: ModelTurn["toolCalls"] = [];
  for (const block of reply.content) {
    if (block.type === "text" && block.text !== undefined) {
      text.push(block.text);
    }
    if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id || newCallId(),
        name: block.name ?? "",
        arguments:
          typeof block.input === "string" ? block.input : JSON.stringify(block.input ?? {}),
      });
    }
  }
  const prompt = reply.usage?.input_tokens ?? 0;
  const completion = reply.usage?.output_tokens ?? 0;
  return {
    content: text.length ? text.join("") : null,
    toolCalls,
    finishReason: mapAnthropicFinish(reply.stop_reason, toolCalls.length > 0),
    usage: { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion },
    model: reply.model ?? requestedModel,
    raw: json,
  };
}

// Unknown keys are ignored; a key the loop reads must have the right type when present.

function replyProblem(json: unknown): string | undefined {
  if (!isObject(json)) {
    return "expected an object";
  }
  if (!isOptionalString(json.model)) {
    return "model: expected a string";
  }
  if (!isOptionalString(json.stop_reason)) {
    return "stop_reason: expected a string";
  }
  if (!Array.isArray(json.content)) {
    return "content: expected an array";
  }
  const block = firstItemProblem(json.content, blockProblem);
  if (block !== undefined) {
    return `content${block}`;
  }
  const usage = usageProblem(json.usage, ["input_tokens", "output_tokens"]);
  return usage === undefined ? undefined : `usage${usage}`;
}

function blockProblem(block: unknown): string | undefined {
  if (!isObject(block)) {
    return ": expected an object";
  }
  if (typeof block.type !== "string") {
    return ".type: expected a string";
  }
  for (const key of ["text", "id", "name"] as const) {
    if (block[key] !== undefined && typeof block[key] !== "string") {
      return `.${key}: expected a string`;
    }
  }
  return undefined;
}
