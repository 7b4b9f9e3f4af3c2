/**
 * The `LoopConfig` a client hands the loop for each run. Kept apart from the entry points
 * because it is where the hot path is decided: entry points without a listener of their own
 * share one config per streaming mode (built once, not per run), and `emit` is the caller's
 * `onEvent` itself unless a local listener must hear the events too.
 */
import type { WaitFor } from "../types";
import type { RunEvent } from "../events";
import type { MetricEvent } from "../metrics";
import type { LoopConfig, ModelCaller } from "../loop/run-loop";
import type { CommonClientOptions } from "./options";
import { DEFAULT_MAX_TOOL_OUTPUT_BYTES } from "../loop/tool-output";

/**
 * What one entry point listens to, beside the client's own `onEvent`. `run`,
 * `runWithAnswer` and `continueRun` listen to nothing (`NO_LISTENERS`).
 */
export interface Listeners {
  /** Every run event (`stream()`). */
  event?: (event: RunEvent) => void;
  /**
   * Text deltas only (`ask({ onText })`): handed the text itself, so no event object is
   * built for them, nor for the other events, which nobody else may be listening to.
   */
  text?: (delta: string) => void;
  /** What must happen before `waitFor` is asked (a stream's consumer taking the `pending` event). */
  beforeWait?: () => Promise<void>;
}

export const NO_LISTENERS: Listeners = Object.freeze({});

/** The config for one run. */
export type LoopConfigFor = (listeners: Listeners, stream: boolean) => LoopConfig;

/** What every run of one client shares: its model caller, its shaped request params, its metric sink. */
export interface ClientLoopParts {
  callModel: ModelCaller;
  requestParams: Record<string, unknown> | undefined;
  metric: (event: MetricEvent) => void;
}

export function loopConfigs(
  options: CommonClientOptions,
  { callModel, requestParams, metric }: ClientLoopParts,
): LoopConfigFor {
  const buildConfig: LoopConfigFor = ({ event, text, beforeWait }, stream) => ({
    checkpoint: options.onCheckpoint,
    ...(options.onCallCheckpoint ? { callCheckpoint: options.onCallCheckpoint } : {}),
    ...(options.limitBefore ? { limitBefore: options.limitBefore } : {}),
    model: options.model,
    callModel,
    stream,
    maxTurns: options.maxTurns ?? 10,
    maxToolOutputBytes: options.maxToolOutputBytes ?? DEFAULT_MAX_TOOL_OUTPUT_BYTES,
    hooks: options.hooks ?? {},
    waitFor:
      beforeWait && options.waitFor ? withPrelude(beforeWait, options.waitFor) : options.waitFor,
    requestParams,
    ...(options.refusalText ? { refusalText: options.refusalText } : {}),
    metric,
    emit: event ? both(options.onEvent, event) : options.onEvent,
    ...(text ? { onText: text } : {}),
  });

  // The loop never changes its config, so entry points without a listener of their own
  // share one per streaming mode instead of building it on every run.
  const shared: { plain?: LoopConfig; streamed?: LoopConfig } = {};
  return (listeners, stream) => {
    if (listeners !== NO_LISTENERS) {
      return buildConfig(listeners, stream);
    }
    if (stream) {
      shared.streamed ??= buildConfig(NO_LISTENERS, true);
      return shared.streamed;
    }
    shared.plain ??= buildConfig(NO_LISTENERS, false);
    return shared.plain;
  };
}

function both(
  first: ((event: RunEvent) => void) | undefined,
  second: (event: RunEvent) => void,
): (event: RunEvent) => void {
  return first
    ? (event) => {
        first(event);
        second(event);
      }
    : second;
}

function withPrelude(prelude: () => Promise<void>, waitFor: WaitFor): WaitFor {
  return async (request) => {
    await prelude();
    return waitFor(request);
  };
}
