/**
 * The entry points both clients share (`run`, `stream`, `ask`, `runWithAnswer`,
 * `continueRun`, `askWithAnswer`, `translate`): one loop under one guard, whatever produces
 * the model turns. A factory (`client-wire.ts`, `client-in-process.ts`) only supplies its
 * `Backend`.
 */
import type { RunResult } from "../types";
import { MetricsRegistry, type MetricEvent } from "../metrics";
import { memoryConversationStore } from "./conversation-store";
import { shapeRequestParams } from "./request-params";
import { runTurns, type LoopConfig, type ModelCaller, type RunState } from "../loop/run-loop";
import { translateOnce, type TranslateSend } from "./translate";
import { eventStream, refusedStream } from "../streaming/event-stream";
import { continueRun, resumeRun, type ContinueInput, type ResumeInput } from "../loop/resume";
import type { Client, CommonClientOptions, RunOptions } from "./options";
import { NO_LISTENERS, loopConfigs, type Listeners } from "./loop-config";
import { anySignal, failed, runMetric, runSignal, startState, type Progress } from "./run-support";
import type { Toolkit } from "../toolkit";
import { runTracing } from "../tracing";
import type { RunSegment, SegmentStart } from "../tracing/run-trace";

type Traced = (toolkit: Toolkit) => Toolkit;
const untraced: Traced = (toolkit) => toolkit;

/** How a client produces model turns. */
export interface Backend {
  /**
   * Why `stream()` refuses: set when `call` does not honour its `onText` sink (the turn
   * comes whole), absent when it streams.
   */
  streamRefusal?: string;
  call: ModelCaller;
  translate: TranslateSend;
}

export function buildClient(
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
  const loopConfig = loopConfigs(options, backend.call, requestParams, metric);

  /** Runs `body` under the client's timeout and the caller's signal; reports failures once. */
  async function guarded<T>(
    signal: AbortSignal | undefined,
    body: (signal?: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const combined = runSignal(options.timeoutMs, signal);
    try {
      return await body(combined);
    } catch (error) {
      throw failed(metric, options.model, error, combined);
    }
  }

  const streaming = options.streaming ?? false;
  const tracing = runTracing(options);

  /**
   * Runs one entry point of the loop under the guard (as `guarded`, written out: one async
   * frame less on every run), and closes it with a `done` event and the run metric.
   * `progress` gives what a failed run had reached, for its metric.
   */
  async function drive(
    signal: AbortSignal | undefined,
    listeners: Listeners,
    body: (
      config: LoopConfig,
      signal: AbortSignal | undefined,
      toolkit: Traced,
    ) => Promise<RunResult>,
    progress: () => Progress | undefined,
    stream = streaming,
    from?: SegmentStart,
  ): Promise<RunResult> {
    const started = Date.now();
    const combined = runSignal(options.timeoutMs, signal);
    let segment: RunSegment | undefined;
    try {
      const plain = loopConfig(listeners, stream);
      // With a tracer, the run is one traced segment (src/core/tracing): the loop is unchanged.
      segment = tracing?.begin(plain, from);
      const config = segment?.config ?? plain;
      const result = await body(config, combined, segment ? segment.toolkit : untraced);
      segment?.end(result);
      config.emit?.({ type: "done", result });
      runMetric(metric, options.model, result.status, result, started);
      return result;
    } catch (error) {
      segment?.fail(error);
      throw failed(metric, options.model, error, combined, started, progress());
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
    listeners: Listeners = NO_LISTENERS,
    stream = streaming,
    conversation?: string,
  ) => {
    let state: RunState | undefined;
    const { toolkit } = runOptions;
    return drive(
      runOptions.signal,
      listeners,
      conversation === undefined
        ? (config, signal, traced) => {
            state = startState(options, prompt, runOptions.history);
            return runTurns(config, state, traced(toolkit), signal);
          }
        : async (config, signal, traced) => {
            state = startState(options, prompt, (await store.get(conversation)) ?? []);
            const result = await runTurns(config, state, traced(toolkit), signal);
            await store.set(conversation, result.messages);
            return result;
          },
      () => state,
      stream,
    );
  };
  const runWithAnswer = (input: ResumeInput) =>
    drive(
      input.signal,
      NO_LISTENERS,
      (config, signal, traced) =>
        resumeRun(config, withSignal({ ...input, toolkit: traced(input.toolkit) }, signal)),
      () => input,
      streaming,
      input,
    );
  const carryOn = (input: ContinueInput) =>
    drive(
      input.signal,
      NO_LISTENERS,
      (config, signal, traced) =>
        continueRun(config, withSignal({ ...input, toolkit: traced(input.toolkit) }, signal)),
      () => input,
      streaming,
      input,
    );

  return {
    model: options.model,
    continueRun: carryOn,
    run: (prompt, runOptions) => run(prompt, runOptions),
    stream: (prompt, { id, ...runOptions }) => {
      if (backend.streamRefusal !== undefined) {
        return refusedStream(backend.streamRefusal);
      }
      if (id !== undefined && runOptions.history !== undefined) {
        return refusedStream("stream: give a conversation id or a history, not both");
      }
      return eventStream(({ emit, stop, drained }) =>
        run(
          prompt,
          { ...runOptions, signal: anySignal(runOptions.signal, stop) },
          { event: emit, beforeWait: drained },
          true,
          id,
        ),
      );
    },
    runWithAnswer: (input) => runWithAnswer(input),
    ask(prompt, { toolkit, id, onText, signal }) {
      return run(
        prompt,
        { toolkit, signal },
        onText ? { text: onText } : NO_LISTENERS,
        streaming || onText !== undefined,
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
