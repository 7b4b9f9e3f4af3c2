/**
 * Retries for provider calls: 429/500/502/503/504 and network errors, exponential
 * backoff with full jitter. `Retry-After` is honoured only as whole delay-seconds in
 * 0 … 2147483647 ("0" = now; RFC 9110 §10.2.3), capped at `MAX_RETRY_DELAY_MS`; an
 * HTTP-date, a fraction, a sign or a value out of that range falls back to backoff
 * (SPEC §8). Aborts are never retried.
 */
export const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

/** Upper bound on any single wait, so a hostile or buggy `Retry-After: 99999999` cannot park a run. */
export const MAX_RETRY_DELAY_MS = 60_000;

/** The largest `Retry-After` delay-seconds honoured; a larger one is out of range (SPEC §8). */
export const MAX_RETRY_AFTER_SECONDS = 2_147_483_647;

/** Milliseconds to wait per `Retry-After`, or undefined when it is absent, not whole delay-seconds, or out of range. */
export function parseRetryAfter(
  value: string | null | undefined,
  maxMs = MAX_RETRY_DELAY_MS,
): number | undefined {
  if (value == null) {
    return undefined;
  }
  const trimmed = value.trim();
  if (!/^\d+$/.test(trimmed)) {
    return undefined;
  }
  const seconds = Number(trimmed);
  if (seconds > MAX_RETRY_AFTER_SECONDS) {
    return undefined;
  }
  return Math.min(seconds * 1000, maxMs);
}

/** Exponential backoff with jitter: uniform in [½, 1]·base·2^attempt, capped. */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(baseMs * 2 ** attempt, MAX_RETRY_DELAY_MS);
  return Math.round(ceiling * (0.5 + random() / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason if it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) {
    return Promise.reject(signal.reason);
  }
  if (ms <= 0) {
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
