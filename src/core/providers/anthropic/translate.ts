import type { ChatRequest, ChatToolChoice } from "../chat";
import { chatToMessages, declaredTool } from "../chat";
import type { ModelRequest } from "../model";

export type AnthropicToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "any" }
  | { type: "tool"; name: string };

/** OpenAI `tool_choice` → Anthropic: `required` is `any`, a named function is `{ type: "tool", name }`. */
export function toAnthropicToolChoice(choice: ChatToolChoice): AnthropicToolChoice {
  if (typeof choice === "object") {
    return { type: "tool", name: choice.function.name };
  }
  switch (choice) {
    case "auto":
      return { type: "auto" };
    case "none":
      return { type: "none" };
    case "required":
      return { type: "any" };
    default: {
      const never: never = choice;
      throw new TypeError(`unknown tool_choice ${JSON.stringify(never)}`);
    }
  }
}

/**
 * A chat request as the neutral model request the anthropic body is built from:
 * system/developer messages hoisted (an explicit `system` replaces them), contents
 * flattened to text, tool calls with their arguments as objects, consecutive tool
 * results merged into one user turn (the last two by `toAnthropicMessages`).
 */
export function chatToAnthropicRequest(request: ChatRequest): ModelRequest {
  const params: Record<string, unknown> = { ...request.params };
  if (request.maxTokens !== undefined) {
    params.max_tokens = request.maxTokens;
  }
  // "auto" is Anthropic's default: left out, as upstream does (one body for the same intent).
  if (request.toolChoice !== undefined && request.toolChoice !== "auto") {
    params.tool_choice = toAnthropicToolChoice(request.toolChoice);
  }
  return {
    model: request.model,
    messages: chatToMessages(request),
    tools: request.tools.map(declaredTool),
    params,
  };
}
