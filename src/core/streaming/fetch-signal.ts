/**
 * Which of a run's abort signals reach `fetch`. Most do; `stream()`'s "the consumer left"
 * signal does not: it almost never fires, and handed to `fetch` it costs every request
 * abort wiring in the HTTP stack (undici links its own controller to it per request: the
 * larger part of `stream()`'s overhead over the raw SSE loop in bench/). Kept from `fetch`,
 * it still stops the run at its next step and makes the SSE reader cancel the body it is
 * reading; a request already sent when it fires is cut off as soon as its response starts.
 */
const notForFetch = new WeakSet<AbortSignal>();

/** Marks `signal` as one the run obeys but `fetch` is not given (see {@link fetchSignal}). */
export function keepFromFetch(signal: AbortSignal): AbortSignal {
  notForFetch.add(signal);
  return signal;
}

/** The signal to pass to `fetch` for a run obeying `signal`: none for a {@link keepFromFetch} one. */
export function fetchSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
  return signal === undefined || notForFetch.has(signal) ? undefined : signal;
}
