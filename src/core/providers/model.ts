/**
 * The one small interface the loop talks to. Each wire style implements it in its
 * own folder (message conversion, tool preparation, response parsing, finish
 * mapping); adding a provider means adding files, not editing the loop.
 */
import type { Message, Tool, ToolCall, Usage } from "../types";

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | (string & {});

export interface ModelRequest {
  model: string;
  messages: Message[];
  tools: Tool[];
  /** Extra body parameters (temperature, max_tokens, …) merged into the request body. */
  params?: Record<string, unknown>;
}

/** One assistant message as the loop needs it. */
export interface ModelTurn {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
  model: string;
  raw?: unknown;
}

export interface WireStyle {
  readonly name: string;
  url(baseUrl: string): string;
  headers(apiKey: string | undefined): Record<string, string>;
  body(request: ModelRequest): Record<string, unknown>;
  /** Throws `ProviderError` when the body is not a usable reply. */
  parse(json: unknown, requestedModel: string): ModelTurn;
}

export const emptyUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

export function addUsage(into: Usage, more: Usage): Usage {
  into.promptTokens += more.promptTokens;
  into.completionTokens += more.completionTokens;
  into.totalTokens += more.totalTokens;
  return into;
}
