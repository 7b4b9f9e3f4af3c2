/**
 * One provider call over the wire, with retries and telemetry. The wire style
 * decides the URL, headers, body and parsing; this file decides when to try again.
 */
import type { ModelRequest, ModelTurn, WireStyle } from "./providers/model";
import type { MetricEvent } from "./metrics";
import { ProviderError, RunAbortedError, excerpt, errorMessage } from "./errors";
import { RETRYABLE_STATUS, backoffDelay, parseRetryAfter, sleep as defaultSleep } from "./retry";

export interface WireCallOptions {
  style: WireStyle;
  baseUrl: string;
  apiKey?: string;
  headers?: Record<string, string>;
  retries: number;
  retryBaseMs: number;
  fetch: typeof fetch;
  bodyTransform?: (body: Record<string, unknown>, info: { style: string; turn: number }) => Record<string, unknown> | void;
  metric(event: MetricEvent): void;
  /** Injected by tests to observe waits without spending them. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function createWireCaller(options: WireCallOptions) {
  const sleep = options.sleep ?? defaultSleep;
  const url = options.style.url(options.baseUrl);
  // A caller's header replaces the built-in one of the same name, whatever its case.
  const headers = new Headers(options.style.headers(options.apiKey));
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);

  return async function callModel(request: ModelRequest, signal: AbortSignal | undefined, turn: number): Promise<ModelTurn> {
    let body = options.style.body(request);
    body = options.bodyTransform?.(body, { style: options.style.name, turn }) ?? body;
    const payload = JSON.stringify(body);

    for (let attempt = 0; ; attempt += 1) {
      // A wait that ended normally after an abort must not lead to another request.
      if (signal?.aborted) throw new RunAbortedError("run aborted before a model call", signal.reason);
      const started = Date.now();
      const record = (status: string, usage?: ModelTurn["usage"]) =>
        options.metric({ type: "llm_request", model: request.model, status, durationMs: Date.now() - started, ...(usage ? { usage } : {}) });
      let response: Response;
      try {
        response = await options.fetch(url, { method: "POST", headers, body: payload, signal });
      } catch (error) {
        if (signal?.aborted) throw new RunAbortedError("run aborted during a model call", signal.reason);
        record("error");
        if (attempt >= options.retries) {
          throw new ProviderError(`${options.style.name}: request failed: ${errorMessage(error)}`, undefined, undefined, true);
        }
        await sleepOrAbort(sleep, backoffDelay(attempt, options.retryBaseMs), signal);
        continue;
      }

      if (!response.ok) {
        const text = await response.text().catch(() => "");
        record(String(response.status));
        if (RETRYABLE_STATUS.has(response.status) && attempt < options.retries) {
          const delay = parseRetryAfter(response.headers.get("retry-after")) ?? backoffDelay(attempt, options.retryBaseMs);
          await sleepOrAbort(sleep, delay, signal);
          continue;
        }
        throw new ProviderError(
          `${options.style.name}: HTTP ${response.status}: ${excerpt(text)}`,
          response.status,
          excerpt(text, 2000),
          RETRYABLE_STATUS.has(response.status),
        );
      }

      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        record("error");
        throw new ProviderError(`${options.style.name}: response is not JSON: ${excerpt(text)}`, response.status, excerpt(text, 2000));
      }
      try {
        const parsed = options.style.parse(json, request.model);
        record("ok", parsed.usage);
        return parsed;
      } catch (error) {
        record("error");
        throw error;
      }
    }
  };
}

async function sleepOrAbort(sleep: (ms: number, signal?: AbortSignal) => Promise<void>, ms: number, signal?: AbortSignal) {
  try {
    await sleep(ms, signal);
  } catch (error) {
    if (signal?.aborted) throw new RunAbortedError("run aborted while waiting to retry", signal.reason);
    throw error;
  }
}
