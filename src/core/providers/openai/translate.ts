import type { ChatMessage, ChatRequest } from "../chat";
import { argumentsText } from "../chat";

/**
 * A chat request is this style's own format: messages and tools go out as given.
 * Two things change them: an explicit `system` (it replaces the system/developer
 * messages), and tool-call `arguments` given as an object (the API wants JSON text).
 */
export function openaiTranslateBody(request: ChatRequest): Record<string, unknown> {
  const { tool_choice, ...rest } = request.params ?? {};
  const given =
    request.system === undefined
      ? request.messages
      : [
          { role: "system" as const, content: request.system },
          ...request.messages.filter((m) => m.role !== "system" && m.role !== "developer"),
        ];
  const toolChoice = request.toolChoice ?? tool_choice;
  return {
    model: request.model,
    messages: given.map(stringArguments),
    ...rest,
    ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
    ...(request.tools.length
      ? { tools: request.tools, ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }) }
      : {}),
  };
}

function stringArguments(message: ChatMessage): ChatMessage {
  if (
    message.role !== "assistant" ||
    !message.tool_calls?.some((c) => typeof c.function.arguments !== "string")
  ) {
    return message;
  }
  return {
    ...message,
    tool_calls: message.tool_calls.map((c) =>
      typeof c.function.arguments === "string"
        ? c
        : { ...c, function: { ...c.function, arguments: argumentsText(c.function.arguments) } },
    ),
  };
}
