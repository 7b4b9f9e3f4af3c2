/**
 * `createClient`: the client whose model sits behind an HTTP endpoint (openai or
 * anthropic style). All it adds to the shared entry points is the wire caller (retries,
 * streaming, `bodyTransform`, `onError`); everything else is `build.ts`.
 */
import { wireStyle, type StyleName } from "../providers";
import { createWireCaller, type OnError } from "./model-call";
import { buildClient } from "./build";
import type { Client, CommonClientOptions } from "./options";

export interface ClientOptions extends CommonClientOptions {
  baseUrl: string;
  style: StyleName;
  apiKey?: string;
  headers?: Record<string, string>;
  retries?: number;
  retryBaseMs?: number;
  /**
   * Decides, for each failed model request, whether to try again: `"retry"` (still
   * bounded by `retries`) or `"fail"` (at once, skipping the remaining retries); anything
   * else keeps the default, `info.retryable ? "retry" : "fail"`. Not asked about aborts,
   * nor about a stream that failed after text was delivered (it cannot be retried).
   * @example onError: ({ status }) => (status === 400 ? "retry" : undefined)
   */
  onError?: OnError;
  bodyTransform?: (
    body: Record<string, unknown>,
    info: { style: string; turn: number },
  ) => Record<string, unknown> | undefined;
  fetch?: typeof fetch;
  /** For tests: observe retry waits without spending them. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * A client for an OpenAI- or Anthropic-style endpoint.
 * @example
 * const client = createClient({ baseUrl: "https://api.openai.com/v1", style: "openai", model: "gpt-4o-mini", apiKey });
 * const result = await client.run("Refund order 42", { toolkit });
 * if (result.status === "pending") save(JSON.stringify(result)); // resume later with runWithAnswer
 */
export function createClient(options: ClientOptions): Client {
  if (!options.baseUrl) {
    throw new TypeError("createClient: baseUrl is required");
  }
  const style = wireStyle(options.style);
  return buildClient(options, (metric) => {
    const wire = createWireCaller({
      style,
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      headers: options.headers,
      retries: options.retries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 500,
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      bodyTransform: options.bodyTransform,
      onError: options.onError,
      metric,
      sleep: options.sleep,
    });
    return {
      call: wire.call,
      translate: (chat, _neutral, signal) => wire.translate(chat, signal),
    };
  });
}
