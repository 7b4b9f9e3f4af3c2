/**
 * The entry points both clients share (`run`, `stream`, `ask`, `runWithAnswer`,
 * `continueRun`, `askWithAnswer`, `translate`): one loop under one guard, whatever produces
 * the model turns. A factory (`wire.ts`, `in-process.ts`) only supplies its
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
import { checkMaxOutputBytes } from "../loop/tool-output";
import type { RunSegment, SegmentStart } from "../tracing/run-trace";
import { compensateRun } from "../compensation/run";

type Traced = (toolkit: Toolkit) => Toolkit;
const untraced: Traced = (toolkit) => toolkit;

/** How `drive` runs one entry point: the caller's signal, its listeners, what a failure had reached. */
interface DriveOptions {
  signal: AbortSignal | undefined;
  listeners: Listeners;
  progress: () => Progress | undefined;
  /** Default: the client's `streaming` option. */
  stream?: boolean;
  /** Where a resumed run's trace segment starts (src/core/tracing). */
  from?: SegmentStart;
}

/** How a run of a prompt is listened to, streamed and stored (`conversation`: the store's id). */
interface RunHow {
  listeners?: Listeners;
  stream?: boolean;
  conversation?: string | undefined;
}

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
  checkMaxOutputBytes(options.maxToolOutputBytes, "maxToolOutputBytes");
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
  const loopConfig = loopConfigs(options, { callModel: backend.call, requestParams, metric });

  /** Runs `body` under the client's timeout and the caller's signal; reports failures once. */
  async function guarded<T>(
    signal: AbortSignal | undefined,
    body: (signal?: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const combined = runSignal(options.timeoutMs, signal);
    try {
      return await body(combined);
    } catch (error) {
      throw failed(metric, options.model, { error, combined });
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
    body: (
      config: LoopConfig,
      signal: AbortSignal | undefined,
      toolkit: Traced,
    ) => Promise<RunResult>,
    { signal, listeners, progress, stream = streaming, from }: DriveOptions,
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
      runMetric(metric, options.model, { status: result.status, progress: result, started });
      return result;
    } catch (error) {
      segment?.fail(error);
      throw failed(metric, options.model, { error, combined, started, progress: progress() });
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
    { listeners = NO_LISTENERS, stream = streaming, conversation }: RunHow = {},
  ) => {
    let state: RunState | undefined;
    const { toolkit } = runOptions;
    return drive(
      conversation === undefined
        ? (config, signal, traced) => {
            state = startState(options, prompt, runOptions.history);
            return runTurns(config, state, { toolkit: traced(toolkit), signal });
          }
        : async (config, signal, traced) => {
            state = startState(options, prompt, (await store.get(conversation)) ?? []);
            const result = await runTurns(config, state, { toolkit: traced(toolkit), signal });
            await store.set(conversation, result.messages);
            return result;
          },
      { signal: runOptions.signal, listeners, progress: () => state, stream },
    );
  };
  const runWithAnswer = (input: ResumeInput) =>
    drive(
      (config, signal, traced) =>
        resumeRun(config, withSignal({ ...input, toolkit: traced(input.toolkit) }, signal)),
      { signal: input.signal, listeners: NO_LISTENERS, progress: () => input, from: input },
    );
  const carryOn = (input: ContinueInput) =>
    drive(
      (config, signal, traced) =>
        continueRun(config, withSignal({ ...input, toolkit: traced(input.toolkit) }, signal)),
      { signal: input.signal, listeners: NO_LISTENERS, progress: () => input, from: input },
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
          { listeners: { event: emit, beforeWait: drained }, stream: true, conversation: id },
        ),
      );
    },
    runWithAnswer: (input) => runWithAnswer(input),
    ask(prompt, { toolkit, id, onText, signal }) {
      return run(
        prompt,
        { toolkit, signal },
        {
          listeners: onText ? { text: onText } : NO_LISTENERS,
          stream: streaming || onText !== undefined,
          conversation: id,
        },
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
    compensate: (state, compensateOptions) => compensateRun(state, compensateOptions),
    metrics: () => registry.render(),
    conversationStore: () => store,
  };
}
