/**
 * Batches ended spans and sends them as OTLP/HTTP JSON with `fetch`. Bounded everywhere:
 * the queue (the oldest spans are dropped past `maxQueue`), the batch (`maxBatch` spans and
 * `maxBodyBytes` per request: a larger body is split), the attempts (`retries` after the
 * first, for 429/502/503/504 and network errors) and the time (`timeoutMs` per attempt).
 * `flush()` never rejects: a failure is counted (`stats()`, read by /metrics) and reported
 * to the error sink, and a run never waits on it (the edge hands it to `waitUntil`).
 */
import type { FinishedSpan } from "./tracer";
import { encodeTraces, type OtlpResource } from "./otlp-json";
import type { OtlpSettings } from "../settings/otlp";

export interface OtlpExporterOptions extends OtlpSettings {
  resource: OtlpResource;
  scope: { name: string; version?: string };
  fetch?: typeof fetch;
  /** Receives every failed export (after its retries) and every drop; must not throw. */
  report?: (error: Error) => void;
  maxQueue?: number;
  maxBatch?: number;
  maxBodyBytes?: number;
  retries?: number;
  timeoutMs?: number;
  /** For tests: the wait between attempts. */
  sleep?: (ms: number) => Promise<void>;
}

export interface ExportStats {
  exportedSpans: number;
  /** Requests that failed after their retries (their spans are lost). */
  failedExports: number;
  /** Spans lost: dropped from a full queue, or in a failed export. */
  droppedSpans: number;
}

const RETRYABLE = new Set([429, 502, 503, 504]);

export class OtlpExporter {
  readonly #options: Required<Omit<OtlpExporterOptions, "report" | "fetch" | "sleep">> &
    Pick<OtlpExporterOptions, "report">;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number) => Promise<void>;
  #queue: FinishedSpan[] = [];
  #flushing: Promise<void> | undefined;
  readonly #stats: ExportStats = { exportedSpans: 0, failedExports: 0, droppedSpans: 0 };

  constructor(options: OtlpExporterOptions) {
    this.#options = {
      url: options.url,
      headers: options.headers,
      resource: options.resource,
      scope: options.scope,
      report: options.report,
      maxQueue: options.maxQueue ?? 2048,
      maxBatch: options.maxBatch ?? 512,
      maxBodyBytes: options.maxBodyBytes ?? 1_000_000,
      retries: options.retries ?? 2,
      timeoutMs: options.timeoutMs ?? 10_000,
    };
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Queues one ended span (the edge tracer's `onEnd`). */
  push(span: FinishedSpan): void {
    this.#queue.push(span);
    const over = this.#queue.length - this.#options.maxQueue;
    if (over > 0) {
      this.#queue.splice(0, over);
      this.#stats.droppedSpans += over;
      this.#report(new Error(`OTLP export queue full: dropped ${over} span(s)`));
    }
  }

  /** Sends everything queued; resolves when done, whatever happened. One flush at a time. */
  flush(): Promise<void> {
    const previous = this.#flushing ?? Promise.resolve();
    const next = previous.then(() => this.#drain());
    this.#flushing = next;
    void next.finally(() => {
      if (this.#flushing === next) {
        this.#flushing = undefined;
      }
    });
    return next;
  }

  stats(): ExportStats {
    return { ...this.#stats };
  }

  get queued(): number {
    return this.#queue.length;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#options.maxBatch);
      await this.#sendSplitting(batch);
    }
  }

  /** Sends a batch, halving it while its body is over the byte limit. */
  async #sendSplitting(batch: FinishedSpan[]): Promise<void> {
    const body = encodeTraces(batch, this.#options.resource, this.#options.scope);
    const bytes = new TextEncoder().encode(body).byteLength;
    if (bytes > this.#options.maxBodyBytes) {
      if (batch.length === 1) {
        this.#stats.droppedSpans += 1;
        this.#report(new Error(`OTLP export: one span is ${bytes} bytes, over the limit; dropped`));
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await this.#sendSplitting(batch.slice(0, half));
      await this.#sendSplitting(batch.slice(half));
      return;
    }
    const failure = await this.#send(body);
    if (failure) {
      this.#stats.failedExports += 1;
      this.#stats.droppedSpans += batch.length;
      this.#report(new Error(`OTLP export of ${batch.length} span(s) failed: ${failure}`));
    } else {
      this.#stats.exportedSpans += batch.length;
    }
  }

  /** Undefined on success, else why the last attempt failed. */
  async #send(body: string): Promise<string | undefined> {
    let why = "not sent";
    for (let attempt = 0; attempt <= this.#options.retries; attempt++) {
      if (attempt > 0) {
        await this.#sleep(100 * 4 ** (attempt - 1));
      }
      try {
        const response = await this.#fetch(this.#options.url, {
          method: "POST",
          headers: { ...this.#options.headers, "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(this.#options.timeoutMs),
        });
        // The body is read so the connection is released; its content (a partial-success
        // message at best) is not needed.
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok) {
          return undefined;
        }
        why = `HTTP ${response.status}`;
        if (!RETRYABLE.has(response.status)) {
          return why;
        }
      } catch (error) {
        why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
    }
    return why;
  }

  #report(error: Error): void {
    try {
      this.#options.report?.(error);
    } catch {
      // The sink must not throw; if it does, nothing more can be done here.
    }
  }
}
