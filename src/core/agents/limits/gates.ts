/**
 * The turn gate (SPEC §7D backpressure, gate 3): at most `maxConcurrentTurns` LLM calls in
 * flight across the whole runtime. It wraps ONLY the model call, never a whole run (a parent
 * holding a slot while its child needs one would deadlock), and a slot is released when its
 * holder's run is aborted, not only when the call returns: the call is raced against the
 * holder's signal, so a model call that never settles cannot keep the slot.
 * (Gate 1, the inbox, is in inbox.ts; gate 2, per-parent concurrency, in the runtime's wake.)
 */
import { RunAbortedError } from "../../errors";

export interface TurnGate {
  run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Calls in flight now, and the most ever seen. */
  readonly active: number;
  readonly peak: number;
}

export function turnGate(max: number | undefined): TurnGate {
  let active = 0;
  let peak = 0;
  const queue: Array<() => void> = [];

  const acquire = (signal?: AbortSignal): Promise<void> => {
    if (max === undefined || active < max) {
      active += 1;
      peak = Math.max(peak, active);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        // The releasing holder's slot passes straight to this waiter: `active` is unchanged.
        resolve();
      };
      const onAbort = () => {
        const index = queue.indexOf(grant);
        if (index >= 0) {
          queue.splice(index, 1);
        }
        reject(aborted(signal));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      queue.push(grant);
    });
  };

  const release = () => {
    const next = queue.shift();
    if (next) {
      next();
    } else {
      active -= 1;
    }
  };

  return {
    async run(call, signal) {
      signal?.throwIfAborted();
      await acquire(signal);
      try {
        return await raceAbort(call(), signal);
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get peak() {
      return peak;
    },
  };
}

function aborted(signal: AbortSignal | undefined): RunAbortedError {
  return new RunAbortedError("run aborted", signal?.reason);
}

/** `promise`, or a rejection as soon as `signal` aborts (the promise itself is left to settle). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) {
    return promise;
  }
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(aborted(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
