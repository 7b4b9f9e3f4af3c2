/**
 * The `LoopConfig` a client hands the loop for each run. Kept apart from the entry points
 * because it is where the hot path is decided: entry points without a listener of their own
 * share one config per streaming mode (built once, not per run), and `emit` is the caller's
 * `onEvent` itself unless a local listener must hear the events too.
 */
import type { WaitFor } from "./types";
import type { RunEvent } from "./events";
import type { MetricEvent } from "./metrics";
import type { LoopConfig, ModelCaller } from "./loop/run-loop";
import type { CommonClientOptions } from "./client-options";

/** The local listener of entry points that have none (`run`, `runWithAnswer`, `continueRun`). */
export const ignore = (_event: RunEvent): void => {};

/**
 * The config for one run. `beforeWait`: what must happen before `waitFor` is asked (a
 * stream's consumer taking the `pending` event).
 */
export type LoopConfigFor = (
  local: (e: RunEvent) => void,
  stream: boolean,
  beforeWait?: () => Promise<void>,
) => LoopConfig;

export function loopConfigs(
  options: CommonClientOptions,
  callModel: ModelCaller,
  requestParams: Record<string, unknown> | undefined,
  metric: (event: MetricEvent) => void,
): LoopConfigFor {
  const buildConfig: LoopConfigFor = (local, stream, beforeWait) => ({
    checkpoint: options.onCheckpoint,
    ...(options.onCallCheckpoint ? { callCheckpoint: options.onCallCheckpoint } : {}),
    model: options.model,
    callModel,
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
  return (local, stream, beforeWait) => {
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
}

function withPrelude(prelude: () => Promise<void>, waitFor: WaitFor): WaitFor {
  return async (request) => {
    await prelude();
    return waitFor(request);
  };
}
