import type { FinishReason } from "../model";

/** Anthropic `stop_reason` → ours. Unknown values pass through as the provider said them. */
export function mapAnthropicFinish(
  reason: string | null | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (hasToolCalls) {
    return "tool_calls";
  }
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    case "refusal":
      return "content_filter";
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
    case null:
    case undefined:
      return "stop";
    default:
      return reason;
  }
}
