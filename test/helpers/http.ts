/** HTTP-level helpers for the edge API suites: raw decision posts, unique ids, SSE parsing. */
import { SELF } from "cloudflare:test";
import {
  API_TOKEN,
  BASE,
  WEBHOOK_SECRET,
  api,
  getRun,
  signedDecision,
  startRun,
  waitForStatus,
} from "./edge";

/** A fresh, valid thread id, so suites never share Durable Object state. */
export function uniqueThread(prefix = "t"): string {
  return `${prefix}_${crypto.randomUUID().replace(/-/g, "")}`;
}

/** A well-formed run id for a thread that has no run. */
export function absentRunId(): string {
  return `${uniqueThread("ghost")}.run_${"0123456789abcdef0123"}`;
}

/** POSTs /v1/decisions with exactly these headers and bytes (no signing). */
export function rawDecision(
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<Response> {
  return SELF.fetch(`${BASE}/v1/decisions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

/** Starts a run and waits until it suspends; returns the run view and its request. */
export async function pendingRun(input: string, extra: Record<string, unknown> = {}) {
  const started = await startRun({ agent: "support", input, ...extra });
  const run = await waitForStatus(started.runId, ["pending", "done", "failed", "incomplete"]);
  if (run.status !== "pending" || !run.pending) {
    throw new Error(`run ${started.runId} did not suspend: ${JSON.stringify(run)}`);
  }
  return { ...started, run, request: run.pending };
}

/** Starts a run and waits until it finishes (any terminal status). */
export async function finishedRun(input: string, extra: Record<string, unknown> = {}) {
  const started = await startRun({ agent: "support", input, ...extra });
  const run = await waitForStatus(started.runId, ["done", "failed", "incomplete", "cancelled"]);
  return { ...started, run };
}

/**
 * Posts a decision and waits for the run to finish. It speaks for a support lead, who may
 * decide the demo agent's account deletions (approver rules); other requests just record it.
 */
export async function decideAndFinish(
  runId: string,
  requestId: string,
  decision: "approve" | "decline" | "cancel",
  data?: unknown,
  decidedBy = "lead@example.com",
) {
  const response = await signedDecision({
    runId,
    requestId,
    decision,
    ...(data === undefined ? {} : { data }),
    decidedBy,
  });
  if (response.status !== 202) {
    throw new Error(`decision failed: ${response.status} ${await response.text()}`);
  }
  return waitForStatus(runId, ["done", "failed", "incomplete"]);
}

export async function errorOf(
  response: Response,
): Promise<{ code: string; message: string; issues?: Array<{ path: string; message: string }> }> {
  const body = (await response.json()) as {
    error?: { code: string; message: string; issues?: Array<{ path: string; message: string }> };
  };
  if (
    !body.error ||
    typeof body.error.code !== "string" ||
    typeof body.error.message !== "string"
  ) {
    throw new Error(`not an error body: ${JSON.stringify(body)}`);
  }
  return body.error;
}

export interface SseFrame {
  id?: string;
  event: string;
  data: string;
}

/** Incremental Server-Sent Events parser (comments ignored, multi-line data joined with \n). */
export class SseReader {
  readonly frames: SseFrame[] = [];
  closed = false;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #decoder = new TextDecoder();
  #buffer = "";

  constructor(response: Response) {
    if (!response.body) {
      throw new Error("response has no body");
    }
    this.#reader = response.body.getReader();
  }

  /** Reads until `predicate` holds for a frame (returns it) or the stream closes (returns undefined). */
  async until(
    predicate: (frame: SseFrame) => boolean,
    timeoutMs = 10_000,
  ): Promise<SseFrame | undefined> {
    const deadline = Date.now() + timeoutMs;
    let seen = 0;
    for (;;) {
      for (; seen < this.frames.length; seen += 1) {
        if (predicate(this.frames[seen]!)) {
          return this.frames[seen];
        }
      }
      if (this.closed) {
        return undefined;
      }
      await this.#pull(deadline - Date.now());
    }
  }

  /** Reads everything until the server closes the stream. */
  async toEnd(timeoutMs = 10_000): Promise<SseFrame[]> {
    await this.until(() => false, timeoutMs);
    return this.frames;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  async #pull(remainingMs: number): Promise<void> {
    if (remainingMs <= 0) {
      await this.cancel();
      throw new Error(
        `SSE stream still open after timeout; frames so far: ${this.frames.map((f) => f.event).join(",")}`,
      );
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">(
      (resolve) => (timer = setTimeout(() => resolve("timeout"), remainingMs)),
    );
    const result = await Promise.race([this.#reader.read(), timeout]);
    clearTimeout(timer);
    if (result === "timeout") {
      return this.#pull(0);
    }
    if (result.done) {
      this.#buffer += this.#decoder.decode();
      this.#parse(true);
      this.closed = true;
      return;
    }
    this.#buffer += this.#decoder.decode(result.value, { stream: true });
    this.#parse(false);
  }

  #parse(final: boolean): void {
    this.#buffer = this.#buffer.replace(/\r\n?/g, "\n");
    for (let end = this.#buffer.indexOf("\n\n"); end !== -1; end = this.#buffer.indexOf("\n\n")) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      this.#block(block);
    }
    if (final && this.#buffer.trim()) {
      throw new Error(`SSE stream ended mid-frame: ${JSON.stringify(this.#buffer)}`);
    }
  }

  #block(block: string): void {
    let id: string | undefined;
    let event = "message";
    const data: string[] = [];
    let fields = 0;
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) {
        continue;
      }
      const colon = line.indexOf(":");
      const name = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) {
        value = value.slice(1);
      }
      fields += 1;
      if (name === "id") {
        id = value;
      } else if (name === "event") {
        event = value;
      } else if (name === "data") {
        data.push(value);
      }
    }
    if (fields > 0) {
      this.frames.push({ ...(id === undefined ? {} : { id }), event, data: data.join("\n") });
    }
  }
}

/** Opens GET /v1/runs/:runId/events (optionally after an event id). */
export function openEvents(
  runId: string,
  lastEventId?: string | number,
  headers: Record<string, string> = {},
): Promise<Response> {
  return api(`/v1/runs/${runId}/events`, {
    headers: {
      accept: "text/event-stream",
      ...(lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) }),
      ...headers,
    },
  });
}

/** The full event log of a finished run (the stream closes by itself). */
export async function allEvents(runId: string, lastEventId?: string | number): Promise<SseFrame[]> {
  const response = await openEvents(runId, lastEventId);
  if (response.status !== 200) {
    throw new Error(`events failed: ${response.status} ${await response.text()}`);
  }
  return new SseReader(response).toEnd();
}

export const dataOf = <T = Record<string, unknown>>(frame: SseFrame): T =>
  JSON.parse(frame.data) as T;

export { API_TOKEN, BASE, WEBHOOK_SECRET, api, getRun, signedDecision, startRun, waitForStatus };
