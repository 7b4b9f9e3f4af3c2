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
      // Events not yet asked for, read from `head` on (no `shift()` per event).
      let queue: RunEvent[] = [];
      let head = 0;
      // next() calls that found nothing to take: an event is handed to the oldest directly,
      // so a consumer that waits costs one promise per event, not a wake-up and a retry.
      const takers: Array<Taker> = [];
      const controller = abortSource();
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
      /** What a next() gets once no event is left to take: the run's error, or the end. */
      const ending = (): Promise<IteratorResult<RunEvent>> =>
        failure !== undefined && !controller.signal.aborted
          ? Promise.reject(failure)
          : Promise.resolve(DONE);
      const end = (error?: unknown) => {
        if (error !== undefined) {
          failure = error;
        }
        finished = true;
        for (const taker of takers.splice(0)) {
          ending().then(taker.resolve, taker.reject);
        }
      };
      start({
        emit: (e) => {
          if (controller.signal.aborted) {
            return;
          }
          emitted += 1;
          const taker = takers.shift();
          if (taker) {
            returned += 1;
            taker.resolve({ value: e, done: false });
          } else {
            queue.push(e);
          }
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
        () => end(),
        (error) => end(error ?? new Error("run failed")),
      );
      return {
        next(): Promise<IteratorResult<RunEvent>> {
          processed = returned;
          settle();
          if (head < queue.length) {
            const value = queue[head] as RunEvent;
            head += 1;
            if (head === queue.length) {
              queue = [];
              head = 0;
            }
            returned += 1;
            return Promise.resolve({ value, done: false });
          }
          if (finished || controller.signal.aborted) {
            return ending();
          }
          return new Promise((resolve, reject) => takers.push({ resolve, reject }));
        },
        return(): Promise<IteratorResult<RunEvent>> {
          if (!finished) {
            controller.abort(new Error("stream closed by its consumer"));
          }
          queue = [];
          head = 0;
          for (const taker of takers.splice(0)) {
            taker.resolve(DONE);
          }
          settle();
          return Promise.resolve(DONE);
        },
      };
    },
  };
}

interface Taker {
  resolve(result: IteratorResult<RunEvent>): void;
  reject(error: unknown): void;
}

const DONE: IteratorResult<RunEvent> = Object.freeze({ value: undefined, done: true });

/** An iterable whose first `next()` throws: for a client that cannot stream. */
export function refusedStream(message: string): AsyncIterable<RunEvent> {
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.reject(new TypeError(message)),
    }),
  };
}
