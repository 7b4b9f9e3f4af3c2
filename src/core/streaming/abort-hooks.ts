/**
 * "Call this if the signal aborts", for callbacks that come and go far more often than
 * their signal does: one per streamed model call, on a run's signal. An
 * `addEventListener`/`removeEventListener` pair on an AbortSignal costs Node more than
 * the rest of reading a small stream (bench/README.md, fifth session), so each signal
 * gets one listener, the first time it is asked for, and each callback is a set entry.
 */
const hooks = new WeakMap<AbortSignal, Set<() => void>>();

/** Runs `callback` once if `signal` aborts; returns the function that forgets it. */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let callbacks = hooks.get(signal);
  if (!callbacks) {
    const fresh = new Set<() => void>();
    callbacks = fresh;
    hooks.set(signal, fresh);
    signal.addEventListener("abort", () => runAll(fresh), { once: true });
  }
  const set = callbacks;
  set.add(callback);
  return () => {
    set.delete(callback);
  };
}

/**
 * An abort controller whose `abort()` runs the {@link onAbort} callbacks of its signal
 * itself, so its signal never needs a listener of ours: for signals made per run
 * (`stream()`'s "the consumer left"), where even one `addEventListener` per run shows.
 */
export function abortSource(): { signal: AbortSignal; abort(reason?: unknown): void } {
  const controller = new AbortController();
  const callbacks = new Set<() => void>();
  hooks.set(controller.signal, callbacks);
  return {
    signal: controller.signal,
    abort(reason) {
      if (!controller.signal.aborted) {
        controller.abort(reason);
        runAll(callbacks);
      }
    },
  };
}

function runAll(callbacks: Set<() => void>): void {
  // Taken out first: a callback that registers another is not called in this round.
  const now = [...callbacks];
  callbacks.clear();
  for (const run of now) {
    run();
  }
}
