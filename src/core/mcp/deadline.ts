/**
 * Time limits for MCP work. A server's `timeout` applies per phase (connect,
 * initialize, list, and each tool call); a tool call's clock stops while an
 * elicitation waits on a person, because human time is not server time.
 */

/** The longest delay timers accept; used to switch off the SDK's own 60 s default. */
export const NO_SDK_TIMEOUT = 2 ** 31 - 1;

export class McpTimeoutError extends Error {
  override readonly name = "McpTimeoutError";
}

/**
 * Runs `work` with a signal that aborts after `ms`; rejects with
 * `McpTimeoutError("<label> timed out after <ms> ms")` even if `work` ignores the signal.
 */
export async function withDeadline<T>(
  label: string,
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new McpTimeoutError(`${label} timed out after ${ms} ms`);
      controller.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** A one-shot timer that can be paused and resumed (nesting counts). */
export class PausableDeadline {
  private remaining: number;
  private startedAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pauses = 0;
  private done = false;

  constructor(
    ms: number,
    private readonly onExpire: () => void,
  ) {
    this.remaining = ms;
    this.arm();
  }

  pause(): void {
    if (this.done || this.pauses++ > 0) {
      return;
    }
    clearTimeout(this.timer);
    this.remaining -= Date.now() - this.startedAt;
  }

  resume(): void {
    if (this.done || --this.pauses > 0) {
      return;
    }
    this.arm();
  }

  clear(): void {
    this.done = true;
    clearTimeout(this.timer);
  }

  private arm(): void {
    this.startedAt = Date.now();
    this.timer = setTimeout(
      () => {
        this.done = true;
        this.onExpire();
      },
      Math.max(0, this.remaining),
    );
  }
}
