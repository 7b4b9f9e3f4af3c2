/** Typed errors the kernel throws, so callers can branch on `code` instead of message text. */

export function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    return error.message;
  }
  return typeof error === "string" ? error : JSON.stringify(error);
}

/** The provider answered with something the loop cannot use (HTTP error, malformed body). */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  // biome-ignore lint/complexity/useMaxParams: public API (exported from src/index.ts and src/core/index.ts): applications construct it in their own providers and fakes, so its positional shape stays.
  constructor(
    message: string,
    readonly status?: number,
    /** A bounded excerpt of what the provider sent. */
    readonly body?: string,
    readonly retryable = false,
  ) {
    super(message);
  }
}

/** A durable resume was called with an answer or state that does not match the halted run. */
export class ResumeError extends Error {
  override readonly name = "ResumeError";
  constructor(
    message: string,
    readonly code: "answer_mismatch" | "not_pending" | "invalid_state",
  ) {
    super(message);
  }
}

/** The run was aborted by the caller's signal or by `timeoutMs`. */
export class RunAbortedError extends Error {
  override readonly name = "RunAbortedError";
  constructor(
    message: string,
    readonly reason?: unknown,
  ) {
    super(message);
  }
}

/** Cuts a provider body down to something safe to put in an error message. */
export function excerpt(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
