/**
 * One provider call over the wire, with retries and telemetry. The wire style
 * decides the URL, headers, body and parsing; this file decides when to try again.
 * A call either reads one JSON reply or, given a text sink, reads the reply as
 * Server-Sent Events and hands each text delta to the sink as it arrives.
 */
import type { ModelRequest, ModelTurn, WireStyle } from "../providers/model";
import type { ModelCall } from "../loop/run-loop";
import type { ChatRequest } from "../providers/chat";
import type { MetricEvent } from "../metrics";
import { ProviderError, RunAbortedError, excerpt, errorMessage } from "../errors";
import { RETRYABLE_STATUS, backoffDelay, parseRetryAfter, sleep as defaultSleep } from "./retry";
import { StreamInterruptedError, readSseEvents } from "../streaming/sse";
import { fetchSignal } from "../streaming/fetch-signal";
import { endpointLabel, failureCause } from "../providers/endpoint-label";

export interface WireCallOptions {
  style: WireStyle;
  baseUrl: string;
  apiKey?: string;
  headers?: Record<string, string>;
  retries: number;
  retryBaseMs: number;
  fetch: typeof fetch;
  bodyTransform?: (
    body: Record<string, unknown>,
    info: { style: string; turn: number },
  ) => Record<string, unknown> | undefined;
  /** The host's retry-vs-fail classifier (SPEC §8 `onError`); absent ⇒ `retryable ? "retry" : "fail"`. */
  onError?: OnError;
  metric(event: MetricEvent): void;
  /** Injected by tests to observe waits without spending them. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * One failed model request, as `onError` sees it: `status` for an HTTP error reply,
 * `error` for a network failure or an unusable reply; `attempt` counts from 0;
 * `retryable` is the default decision (429/5xx/network/provider overload).
 */
export interface ErrorInfo {
  error?: unknown;
  status?: number;
  attempt: number;
  retryable: boolean;
}

export type ErrorDecision = "retry" | "fail";

/** Returns a decision, or nothing to keep the default; may be async. */
export type OnError = (
  info: ErrorInfo,
) => ErrorDecision | void | Promise<ErrorDecision | undefined> | Promise<void>;

/** Receives text as the model produces it; given ⇒ the call streams. */
export type TextSink = (delta: string) => void;

/** An error thrown by the caller's sink: it is the caller's, never retried or wrapped. */
class SinkFailure {
  constructor(readonly error: unknown) {}
}

/** One model exchange: the model asked for, the run's signal, and where streamed text goes. */
interface ModelExchange {
  model: string;
  signal: AbortSignal | undefined;
  onText?: TextSink | undefined;
}

export function createWireCaller(options: WireCallOptions) {
  const { style } = options;
  const sleep = options.sleep ?? defaultSleep;
  const url = style.url(options.baseUrl);
  // For error messages: where the request went, without credentials.
  const endpoint = endpointLabel(url);
  // A caller's header replaces the built-in one of the same name, whatever its case.
  // Kept as a plain object of lowercase names: fetch copies it cheaply on every request.
  // (The styles' own names are lowercase already; no Headers object per client.)
  const headers: Record<string, string> = style.headers(options.apiKey);
  if (options.headers) {
    // Through Headers: a bad name or value fails here, at construction, as before.
    for (const [name, value] of new Headers(options.headers)) {
      headers[name] = value;
    }
  }

  // With a bodyTransform the body is built as an object for it; without one, as JSON text
  // straight away (the style reuses each tool's JSON from earlier turns).
  const transform = options.bodyTransform;
  const serialize = (body: Record<string, unknown>, turn: number) =>
    JSON.stringify(transform?.(body, { style: style.name, turn }) ?? body);

  /** Whether to try again after a failed attempt: the host's decision, else the default; never past `retries`. */
  async function retryAfterFailure(info: ErrorInfo): Promise<boolean> {
    if (info.attempt >= options.retries) {
      // Still asked, so a host sees every failure; the bound holds whatever it says.
      await options.onError?.(info);
      return false;
    }
    const decision = await options.onError?.(info);
    return decision === "retry" || decision === "fail" ? decision === "retry" : info.retryable;
  }

  /** A whole JSON reply's text → the turn (synchronous: the caller awaits the text itself, one async frame less per call). */
  function parseJsonReply(text: string, status: number, model: string): ModelTurn {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ProviderError(
        `${style.name}: response is not JSON: ${excerpt(text)}`,
        status,
        excerpt(text, 2000),
      );
    }
    return style.parse(json, model);
  }

  async function readStream(
    response: Response,
    { model, signal }: ModelExchange,
    { deliver, delivered }: { deliver: TextSink; delivered: () => boolean },
  ) {
    // A server that ignores the stream flag answers with one JSON reply: use it whole.
    if (/\bjson\b/i.test(response.headers.get("content-type") ?? "")) {
      const turn = parseJsonReply(await response.text(), response.status, model);
      if (turn.content) {
        deliver(turn.content);
      }
      return turn;
    }
    const parser = style.streamParser(model);
    try {
      await readSseEvents(response.body, signal, (event) => {
        parser.push(event, deliver);
        return parser.ended;
      });
    } catch (error) {
      if (error instanceof ProviderError || error instanceof SinkFailure || signal?.aborted) {
        throw error;
      }
      throw new StreamInterruptedError(
        `${style.name}: stream failed while reading: ${errorMessage(error)}`,
        delivered(),
        error,
      );
    }
    if (signal?.aborted) {
      throw new RunAbortedError("run aborted during a model call", signal.reason);
    }
    if (!parser.complete) {
      throw new StreamInterruptedError(
        `${style.name}: stream ended before its final event`,
        delivered(),
      );
    }
    return parser.finish();
  }

  /** Sends one body, retrying per policy; a streamed call is retried only while none of it was delivered. */
  async function exchange(
    payload: string,
    { model, signal, onText }: ModelExchange,
  ): Promise<ModelTurn> {
    let delivered = false;
    const deliver: TextSink | undefined = onText
      ? (delta) => {
          delivered = true;
          try {
            onText(delta);
          } catch (error) {
            throw new SinkFailure(error);
          }
        }
      : undefined;

    for (let attempt = 0; ; attempt += 1) {
      // A wait that ended normally after an abort must not lead to another request.
      if (signal?.aborted) {
        throw new RunAbortedError("run aborted before a model call", signal.reason);
      }
      const started = Date.now();
      const record = (status: string, usage?: ModelTurn["usage"]) =>
        options.metric({
          type: "llm_request",
          model,
          status,
          durationMs: Date.now() - started,
          ...(usage ? { usage } : {}),
        });
      let response: Response;
      const sentSignal = fetchSignal(signal);
      try {
        response = await options.fetch(
          url,
          sentSignal
            ? { method: "POST", headers, body: payload, signal: sentSignal }
            : { method: "POST", headers, body: payload },
        );
      } catch (error) {
        if (signal?.aborted) {
          throw new RunAbortedError("run aborted during a model call", signal.reason);
        }
        record("error");
        if (!(await retryAfterFailure({ error, attempt, retryable: true }))) {
          throw new ProviderError(
            `${style.name}: request to ${endpoint} failed: ${failureCause(error)}`,
            undefined,
            undefined,
            true,
          );
        }
        await sleepOrAbort(sleep, backoffDelay(attempt, options.retryBaseMs), signal);
        continue;
      }

      if (!response.ok) {
        const text = await response.text().catch(() => "");
        record(String(response.status));
        const retryable = RETRYABLE_STATUS.has(response.status);
        if (await retryAfterFailure({ status: response.status, attempt, retryable })) {
          const delay =
            parseRetryAfter(response.headers.get("retry-after")) ??
            backoffDelay(attempt, options.retryBaseMs);
          await sleepOrAbort(sleep, delay, signal);
          continue;
        }
        throw new ProviderError(
          // "LLM <status>: <body>" is the SPEC's wording (after the style, as every error here).
          `${style.name}: LLM ${response.status}: ${excerpt(text)}`,
          response.status,
          excerpt(text, 2000),
          retryable,
        );
      }

      try {
        const turn = deliver
          ? await readStream(response, { model, signal }, { deliver, delivered: () => delivered })
          : parseJsonReply(await response.text(), response.status, model);
        record("ok", turn.usage);
        return turn;
      } catch (error) {
        if (error instanceof SinkFailure) {
          throw error.error;
        }
        if (signal?.aborted) {
          throw new RunAbortedError("run aborted during a model call", signal.reason);
        }
        record("error");
        // Text already handed on cannot be taken back: such a call is never retried.
        if (
          !delivered &&
          (await retryAfterFailure({
            error,
            attempt,
            retryable: error instanceof ProviderError && error.retryable,
          }))
        ) {
          await sleepOrAbort(sleep, backoffDelay(attempt, options.retryBaseMs), signal);
          continue;
        }
        throw error;
      }
    }
  }

  return {
    /** One model turn of the loop; streamed when `onText` is given. */
    call(request: ModelRequest, { signal, turn, onText }: ModelCall): Promise<ModelTurn> {
      const extra = onText ? style.streamFlags() : undefined;
      const payload = transform
        ? serialize({ ...style.body(request), ...extra }, turn)
        : style.bodyText(request, extra);
      return exchange(payload, { model: request.model, signal, onText });
    },
    /** `translate()`: one OpenAI-format chat request in this style, never streamed. */
    translate(request: ChatRequest, signal: AbortSignal | undefined): Promise<ModelTurn> {
      return exchange(serialize(style.translateBody(request), 0), {
        model: request.model,
        signal,
      });
    },
  };
}

async function sleepOrAbort(
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ms: number,
  signal?: AbortSignal,
) {
  try {
    await sleep(ms, signal);
  } catch (error) {
    if (signal?.aborted) {
      throw new RunAbortedError("run aborted while waiting to retry", signal.reason);
    }
    throw error;
  }
}
