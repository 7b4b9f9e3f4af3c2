import type { FinishReason } from "../model";

/** OpenAI `finish_reason` → ours. Unknown values pass through as the provider said them. */
export function mapOpenAIFinish(
  reason: string | null | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (hasToolCalls) {
    return "tool_calls";
  }
  switch (reason) {
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    case "stop":
    case null:
    case undefined:
      return "stop";
    default:
      return reason;
  }
}
