/**
 * The one small interface the loop talks to. Each wire style implements it in its
 * own folder (message conversion, tool preparation, response parsing, finish
 * mapping); adding a provider means adding files, not editing the loop.
 */
import type { Message, Tool, ToolCall, Usage } from "../types";
import type { ChatRequest } from "./chat";

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

/** Something of a streamed reply that can be shown before the reply is whole. */
export type ModelDelta = { type: "text"; text: string };

/** Assembles one streamed reply from its Server-Sent Events. */
export interface StreamParser {
  /**
   * Feeds one event; text that can be shown now goes to `onText` (synchronously, before
   * `push` returns). Throws `ProviderError` on an error event or a malformed one.
   */
  push(event: { event?: string | undefined; data: string }, onText: (text: string) => void): void;
  /** The provider's final event arrived: nothing after it matters, stop reading. */
  readonly ended: boolean;
  /** The reply is whole: ended, or (where a style allows) finished without the final marker. */
  readonly complete: boolean;
  /** The assembled turn; only meaningful once `complete`. */
  finish(): ModelTurn;
}

export interface WireStyle {
  readonly name: string;
  url(baseUrl: string): string;
  headers(apiKey: string | undefined): Record<string, string>;
  body(request: ModelRequest): Record<string, unknown>;
  /**
   * The same body, plus `extra` keys, as JSON text: equal to
   * `JSON.stringify({ ...body(request), ...extra })` up to key order, with each tool's
   * JSON reused from earlier turns (see providers/body-json.ts).
   */
  bodyText(request: ModelRequest, extra?: Record<string, unknown>): string;
  /** Throws `ProviderError` when the body is not a usable reply. */
  parse(json: unknown, requestedModel: string): ModelTurn;
  /** Body keys that ask for the reply as Server-Sent Events. */
  streamFlags(): Record<string, unknown>;
  streamParser(requestedModel: string): StreamParser;
  /** `translate()`: the body of one OpenAI-format chat request in this style. */
  translateBody(request: ChatRequest): Record<string, unknown>;
}

export const emptyUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

export function addUsage(into: Usage, more: Usage): Usage {
  into.promptTokens += more.promptTokens;
  into.completionTokens += more.completionTokens;
  into.totalTokens += more.totalTokens;
  return into;
}
