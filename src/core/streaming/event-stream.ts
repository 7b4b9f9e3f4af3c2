/**
 * Run events as an async iterable: the loop pushes them through callbacks, the
 * consumer pulls them with `for await`. The consumer's pace matters in two places:
 * `drained()` lets the loop wait until the consumer has dealt with what it was given
 * (a `pending` event before `waitFor` is asked), and a consumer that leaves early
 * aborts the run.
 */
import type { RunEvent } from "../events";
import type { RunResult } from "../types";
import { keepFromFetch } from "./fetch-signal";
import { abortSource } from "./abort-hooks";

export interface StreamControls {
  emit(event: RunEvent): void;
  /**
   * Aborted when the consumer stops early (`break`, `return()`). Obeyed by the run, not
   * given to `fetch` ({@link keepFromFetch}).
   */
  stop: AbortSignal;
  /** Resolves once the consumer has taken every event emitted so far and come back for more. */
  drained(): Promise<void>;
}

/**
 * Bridges the loop's callback events into an async iterable; the run's error ends the
 * iteration. A consumer that stops early aborts the run.
 */
export function eventStream(
  start: (controls: StreamControls) => Promise<RunResult>,
): AsyncIterable<RunEvent> {
  return {
    [Symbol.asyncIterator]() {
      const queue: RunEvent[] = [];
      const controller = abortSource();
      let wake: (() => void) | undefined;
      let finished = false;
      let failure: unknown;
      // Counts of events emitted, and of events the consumer has finished with (it asked for the next one).
      let emitted = 0;
      let returned = 0;
      let processed = 0;
      let waiters: Array<{ upTo: number; resolve: () => void }> = [];
      const settle = () => {
        // Called on every next(): most of the time nobody waits, so no array is built.
        if (waiters.length === 0) {
          return;
        }
        waiters = waiters.filter((w) => {
          if (processed >= w.upTo || controller.signal.aborted) {
            w.resolve();
            return false;
          }
          return true;
        });
      };
      start({
        emit: (e) => {
          if (controller.signal.aborted) {
            return;
          }
          queue.push(e);
          emitted += 1;
          wake?.();
        },
        stop: keepFromFetch(controller.signal),
        drained: () => {
          const upTo = emitted;
          if (processed >= upTo || controller.signal.aborted) {
            return Promise.resolve();
          }
          return new Promise((resolve) => waiters.push({ upTo, resolve }));
        },
      }).then(
        () => {
          finished = true;
          wake?.();
        },
        (error) => {
          failure = error ?? new Error("run failed");
          finished = true;
          wake?.();
        },
      );
      return {
        async next(): Promise<IteratorResult<RunEvent>> {
          processed = returned;
          settle();
          while (true) {
            const event = queue.shift();
            if (event) {
              returned += 1;
              return { value: event, done: false };
            }
            if (finished || controller.signal.aborted) {
              if (failure !== undefined && !controller.signal.aborted) {
                throw failure;
              }
              return { value: undefined, done: true };
            }
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        },
        async return(): Promise<IteratorResult<RunEvent>> {
          if (!finished) {
            controller.abort(new Error("stream closed by its consumer"));
          }
          queue.length = 0;
          settle();
          return { value: undefined, done: true };
        },
      };
    },
  };
}

/** An iterable whose first `next()` throws: for a client that cannot stream. */
export function refusedStream(message: string): AsyncIterable<RunEvent> {
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.reject(new TypeError(message)),
    }),
  };
}
