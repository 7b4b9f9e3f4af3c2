/**
 * The client: `createClient` (over the wire, openai or anthropic style) and
 * `createInProcessClient` (a local `generate` function). Both share one loop; they
 * differ only in how one model turn is produced (and whether it can be streamed).
 */
import type {
  Answer,
  Message,
  RefusalText,
  Request,
  RunResult,
  ToolCall,
  Usage,
  WaitFor,
} from "./types";
import type { Toolkit } from "./toolkit";
import type { Hooks } from "./hooks";
import type { RunEvent } from "./events";
import type { FinishReason, ModelRequest, ModelTurn } from "./providers/model";
import { emptyUsage } from "./providers/model";
import { wireStyle, type StyleName } from "./providers/index";
import { MetricsRegistry, type MetricEvent } from "./metrics";
import { memoryConversationStore, type ConversationStore } from "./conversation-store";
import { createWireCaller, type OnError } from "./model-call";
import { shapeRequestParams } from "./request-params";
import { runTurns, type LoopConfig, type ModelCaller, type RunState } from "./loop/run-loop";
import {
  translateOnce,
  type TranslateRequest,
  type TranslateResult,
  type TranslateSend,
} from "./translate";
import { eventStream, refusedStream } from "./event-stream";
import { continueRun, resumeRun, type ContinueInput, type ResumeInput } from "./loop/resume";
import { newCallId } from "./providers/call-ids";
import { RunAbortedError, errorMessage } from "./errors";

export interface CommonClientOptions {
  model: string;
  systemPrompt?: string;
  maxTurns?: number;
  timeoutMs?: number;
  hooks?: Hooks;
  onMetric?: (event: MetricEvent) => void;
  waitFor?: WaitFor;
  /**
   * The text a refused request (declined, cancelled, expired, a policy's refusal) feeds the
   * model. Default: the contract's `declined/expired: <prompt>`; the edge adds a `reason:` line.
   */
  refusalText?: RefusalText;
  store?: ConversationStore;
  /**
   * Merged into every request body, winning over the client's defaults (`max_tokens`, …).
   * The members the client builds (`model`, `messages`, `system`, `tools`, `tool_choice`,
   * `stream`, `stream_options`) are dropped with a warning; `bodyTransform` may change them.
   */
  requestParams?: Record<string, unknown>;
  /** Called at every turn boundary with the run's state, so a host can persist it (the edge does). */
  onCheckpoint?: (state: RunState) => Promise<void> | void;
  /** Receives every run event (the same ones `stream()` yields), for every run of this client. */
  onEvent?: (event: RunEvent) => void;
  /**
   * Every entry point (`run`, `ask`, `runWithAnswer`, `continueRun`) asks the model for
   * streamed replies, so `onEvent` gets `text` deltas as they are generated rather than
   * one `text` per turn. For an in-process client text still comes whole, once per turn.
   */
  streaming?: boolean;
}

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

/** What `generate` returns for `createInProcessClient`: one assistant message. */
export interface GeneratedMessage {
  content?: string | null;
  toolCalls?: Array<{ id?: string; name: string; arguments?: string | Record<string, unknown> }>;
  usage?: Partial<Usage>;
  finishReason?: FinishReason;
}

export interface InProcessClientOptions extends CommonClientOptions {
  generate(request: ModelRequest): Promise<GeneratedMessage> | GeneratedMessage;
}

export interface RunOptions {
  toolkit: Toolkit;
  history?: Message[];
  signal?: AbortSignal;
}

export interface StreamOptions extends RunOptions {
  /** A conversation in the client's store: its transcript is the history, and the run's is saved back before `done`. */
  id?: string;
}

export interface Client {
  run(prompt: string, options: RunOptions): Promise<RunResult>;
  /**
   * The run as it happens: `text` deltas while the model writes, `tool_call`,
   * `tool_result`, `pending` (before `waitFor` is asked), `usage` per model call, and
   * `done` with the `RunResult` last. A run error ends the iteration by throwing it;
   * leaving the loop early aborts the run.
   * @example for await (const e of client.stream("Refund order 42", { toolkit })) if (e.type === "text") write(e.delta);
   */
  stream(prompt: string, options: StreamOptions): AsyncIterable<RunEvent>;
  /**
   * A run in conversation `id` (its transcript loaded from the store first and saved back
   * after); without `id` a one-shot that leaves the store alone. With `onText`, replies
   * are streamed and every text delta reaches it.
   */
  ask(
    prompt: string,
    options: {
      toolkit: Toolkit;
      id?: string;
      onText?: (delta: string) => void;
      signal?: AbortSignal;
    },
  ): Promise<RunResult>;
  runWithAnswer(input: ResumeInput): Promise<RunResult>;
  /** Carries a checkpointed run on without an answer (crash recovery); see `continueRun`. */
  continueRun(input: ContinueInput): Promise<RunResult>;
  askWithAnswer(input: {
    toolkit: Toolkit;
    id: string;
    pending: Request;
    answer: Answer;
    signal?: AbortSignal;
  }): Promise<RunResult>;
  /**
   * One model call for a caller that runs its own loop: OpenAI-format messages and tools
   * in, the reply out; tools are declared, never executed; only `beforeLLM`/`afterLLM` fire.
   * @example const { text, toolCalls, finishReason } = await client.translate({ messages, tools, toolChoice: "auto" });
   */
  translate(request: TranslateRequest): Promise<TranslateResult>;
  metrics(): string;
  conversationStore(): ConversationStore;
  readonly model: string;
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
      streams: true,
      call: wire.call,
      translate: (chat, _neutral, signal) => wire.translate(chat, signal),
    };
  });
}

const IN_PROCESS_STREAM_REFUSAL =
  "createInProcessClient: stream() is not supported: an in-process model returns a whole answer, not a stream. " +
  "Use run(), or ask() with onText (called once per model turn with that turn's whole text).";

/**
 * A client whose model is a local function (tests, demos, rule-based agents): no wire.
 * `generate` returns whole messages, so `stream()` refuses (its first `next()` throws);
 * `ask()` with `onText` and the `streaming` option get each turn's text whole, once.
 */
export function createInProcessClient(options: InProcessClientOptions): Client {
  if (typeof options.generate !== "function") {
    throw new TypeError("createInProcessClient: generate must be a function");
  }
  return buildClient(options, (metric) => {
    const call: ModelCaller = async (request) => {
      const started = Date.now();
      try {
        const turn = normalizeGenerated(await options.generate(request), request.model);
        metric({
          type: "llm_request",
          model: request.model,
          status: "ok",
          durationMs: Date.now() - started,
          usage: turn.usage,
        });
        return turn;
      } catch (error) {
        metric({
          type: "llm_request",
          model: request.model,
          status: "error",
          durationMs: Date.now() - started,
        });
        throw error;
      }
    };
    return { streams: false, call, translate: (_chat, neutral) => call(neutral, undefined, 0) };
  });
}

function normalizeGenerated(message: GeneratedMessage, model: string): ModelTurn {
  const toolCalls: ToolCall[] = (message.toolCalls ?? []).map((c) => ({
    id: c.id || newCallId(),
    name: c.name,
    arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
  }));
  const prompt = message.usage?.promptTokens ?? 0;
  const completion = message.usage?.completionTokens ?? 0;
  return {
    content: message.content ?? null,
    toolCalls,
    finishReason: message.finishReason ?? (toolCalls.length ? "tool_calls" : "stop"),
    usage: {
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: message.usage?.totalTokens ?? prompt + completion,
    },
    model,
  };
}

/** How a client produces model turns. */
interface Backend {
  /** Whether `call` honours its `onText` sink; `stream()` refuses when it does not. */
  streams: boolean;
  call: ModelCaller;
  translate: TranslateSend;
}

function buildClient(
  options: CommonClientOptions,
  makeBackend: (metric: (e: MetricEvent) => void) => Backend,
): Client {
  const registry = new MetricsRegistry();
  const store = options.store ?? memoryConversationStore();
  const metric = (event: MetricEvent) => {
    registry.record(event);
    try {
      options.onMetric?.(event);
    } catch {
      // A faulty metrics sink must not break a run.
    }
  };
  const backend = makeBackend(metric);
  const requestParams = shapeRequestParams(options.requestParams);

  /** `beforeWait`: what must happen before `waitFor` is asked (a stream's consumer taking the `pending` event). */
  const buildConfig = (
    local: (e: RunEvent) => void,
    stream: boolean,
    beforeWait?: () => Promise<void>,
  ): LoopConfig => ({
    checkpoint: options.onCheckpoint,
    model: options.model,
    callModel: backend.call,
    stream,
    maxTurns: options.maxTurns ?? 10,
    hooks: options.hooks ?? {},
    waitFor:
      beforeWait && options.waitFor ? withPrelude(beforeWait, options.waitFor) : options.waitFor,
    requestParams,
    ...(options.refusalText ? { refusalText: options.refusalText } : {}),
    metric,
    emit:
      local === ignore
        ? options.onEvent
        : (event) => {
            options.onEvent?.(event);
            local(event);
          },
  });

  // The loop never changes its config, so entry points without a listener of their own
  // share one per streaming mode instead of building it on every run.
  const shared: { plain?: LoopConfig; streamed?: LoopConfig } = {};
  const loopConfig = (
    local: (e: RunEvent) => void,
    stream: boolean,
    beforeWait?: () => Promise<void>,
  ): LoopConfig => {
    if (local !== ignore || beforeWait) {
      return buildConfig(local, stream, beforeWait);
    }
    if (stream) {
      shared.streamed ??= buildConfig(ignore, true);
      return shared.streamed;
    }
    shared.plain ??= buildConfig(ignore, false);
    return shared.plain;
  };

  /** The caller's signal combined with the client's timeout, if either is set. */
  function runSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
    if (!options.timeoutMs) {
      return signal;
    }
    const timeout = AbortSignal.timeout(options.timeoutMs);
    return signal ? AbortSignal.any([signal, timeout]) : timeout;
  }

  /**
   * Reports a failed run or translation once (metrics) and gives the error to throw.
   * A run (`started` given) also gets its `run` event, with the totals it reached.
   */
  function failed(
    error: unknown,
    combined: AbortSignal | undefined,
    started?: number,
    progress?: Progress,
  ): unknown {
    const failure =
      combined?.aborted && !(error instanceof RunAbortedError)
        ? new RunAbortedError(`run aborted: ${errorMessage(combined.reason)}`, combined.reason)
        : error;
    const message = errorMessage(failure);
    metric({ type: "run_error", model: options.model, error: message });
    if (started !== undefined) {
      runMetric("failed", progress, started, message);
    }
    return failure;
  }

  /** The per-run metric (SPEC §8 `event: "run"`), one per run whatever its outcome. */
  function runMetric(
    status: RunMetricStatus,
    progress: Progress | undefined,
    started: number,
    error?: string,
  ) {
    const toolCalls = progress?.toolCalls?.length ?? 0;
    metric({
      type: "run",
      model: options.model,
      status,
      turns: progress?.turns ?? 0,
      toolCalls,
      totalTokens: progress?.usage?.totalTokens ?? 0,
      durationMs: Date.now() - started,
      ...(error === undefined ? {} : { error }),
    });
  }

  /** Runs `body` under the client's timeout and the caller's signal; reports failures once. */
  async function guarded<T>(
    signal: AbortSignal | undefined,
    body: (signal?: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const combined = runSignal(signal);
    try {
      return await body(combined);
    } catch (error) {
      throw failed(error, combined);
    }
  }

  function startState(prompt: string, history: Message[] = []) {
    // A new array: the caller's history is never changed (messages themselves are never mutated).
    const user: Message = { role: "user", content: prompt };
    const messages: Message[] =
      options.systemPrompt && history[0]?.role !== "system"
        ? [{ role: "system", content: options.systemPrompt }, ...history, user]
        : [...history, user];
    return {
      runId: crypto.randomUUID(),
      messages,
      toolCalls: [],
      turns: 0,
      usage: emptyUsage(),
      model: options.model,
    };
  }

  const streaming = options.streaming ?? false;

  /**
   * Runs one entry point of the loop under the guard (as `guarded`, written out: one async
   * frame less on every run), and closes it with a `done` event and the run metric.
   * `progress` gives what a failed run had reached, for its metric.
   */
  async function drive(
    signal: AbortSignal | undefined,
    local: (e: RunEvent) => void,
    body: (config: LoopConfig, signal?: AbortSignal) => Promise<RunResult>,
    progress: () => Progress | undefined,
    stream = streaming,
    beforeWait?: () => Promise<void>,
  ): Promise<RunResult> {
    const started = Date.now();
    const combined = runSignal(signal);
    try {
      const config = loopConfig(local, stream, beforeWait);
      const result = await body(config, combined);
      config.emit?.({ type: "done", result });
      runMetric(result.status, result, started);
      return result;
    } catch (error) {
      throw failed(error, combined, started, progress());
    }
  }
  const withSignal = <T extends object>(input: T, signal?: AbortSignal) =>
    signal ? { ...input, signal } : input;

  /**
   * A run of `prompt`. With a `conversation` id its history comes from the store and its
   * transcript goes back there before `done` is emitted; without one the store is untouched.
   */
  const run = (
    prompt: string,
    runOptions: RunOptions,
    local: (e: RunEvent) => void = ignore,
    stream = streaming,
    beforeWait?: () => Promise<void>,
    conversation?: string,
  ) => {
    let state: RunState | undefined;
    const { toolkit } = runOptions;
    return drive(
      runOptions.signal,
      local,
      conversation === undefined
        ? (config, signal) => {
            state = startState(prompt, runOptions.history);
            return runTurns(config, state, toolkit, signal);
          }
        : async (config, signal) => {
            state = startState(prompt, (await store.get(conversation)) ?? []);
            const result = await runTurns(config, state, toolkit, signal);
            await store.set(conversation, result.messages);
            return result;
          },
      () => state,
      stream,
      beforeWait,
    );
  };
  const runWithAnswer = (input: ResumeInput) =>
    drive(
      input.signal,
      ignore,
      (config, signal) => resumeRun(config, withSignal(input, signal)),
      () => input,
    );
  const carryOn = (input: ContinueInput) =>
    drive(
      input.signal,
      ignore,
      (config, signal) => continueRun(config, withSignal(input, signal)),
      () => input,
    );

  return {
    model: options.model,
    continueRun: carryOn,
    run: (prompt, runOptions) => run(prompt, runOptions),
    stream: (prompt, { id, ...runOptions }) => {
      if (!backend.streams) {
        return refusedStream(IN_PROCESS_STREAM_REFUSAL);
      }
      if (id !== undefined && runOptions.history !== undefined) {
        return refusedStream("stream: give a conversation id or a history, not both");
      }
      return eventStream(({ emit, stop, drained }) =>
        run(
          prompt,
          { ...runOptions, signal: anySignal(runOptions.signal, stop) },
          emit,
          true,
          drained,
          id,
        ),
      );
    },
    runWithAnswer: (input) => runWithAnswer(input),
    ask(prompt, { toolkit, id, onText, signal }) {
      const local = onText
        ? (e: RunEvent) => {
            if (e.type === "text") {
              onText(e.delta);
            }
          }
        : ignore;
      return run(
        prompt,
        { toolkit, signal },
        local,
        streaming || onText !== undefined,
        undefined,
        id,
      );
    },
    async askWithAnswer({ toolkit, id, pending, answer, signal }) {
      if (typeof id !== "string") {
        throw new TypeError("askWithAnswer: id (the conversation to resume) is required");
      }
      const history = await store.get(id);
      if (!history) {
        throw new TypeError(`askWithAnswer: no conversation ${JSON.stringify(id)} in the store`);
      }
      const result = await runWithAnswer({ toolkit, history, pending, answer, signal });
      await store.set(id, result.messages);
      return result;
    },
    translate: (request) =>
      guarded(request.signal, (signal) =>
        translateOnce(
          {
            model: options.model,
            hooks: options.hooks ?? {},
            requestParams,
            send: backend.translate,
          },
          request,
          signal,
        ),
      ),
    metrics: () => registry.render(),
    conversationStore: () => store,
  };
}

/** What a run had reached: its state, or the halted result it resumed from. */
type Progress = Partial<Pick<RunResult, "turns" | "toolCalls" | "usage">>;
type RunMetricStatus = Extract<MetricEvent, { type: "run" }>["status"];

/** The local listener of entry points that have none (`run`, `runWithAnswer`, `continueRun`). */
const ignore = (_event: RunEvent): void => {};

function withPrelude(prelude: () => Promise<void>, waitFor: WaitFor): WaitFor {
  return async (request) => {
    await prelude();
    return waitFor(request);
  };
}

function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length > 1 ? AbortSignal.any(present) : present[0];
}
