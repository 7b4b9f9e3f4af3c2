/**
 * The run's event log and its live listeners. Every event is appended to storage
 * first (so it can be replayed with Last-Event-ID), then pushed to connected
 * Server-Sent Events streams of the same run.
 *
 * A halt is a state, not an event: the log's vocabulary is public and has no word for it.
 * So listeners learn of it from an SSE comment (`: halted`, ignored by every SSE parser),
 * sent live when the driver signals it and after the backlog when a stream opens on a run
 * that is pending — the chat protocols end their responses on it without polling.
 *
 * A stream is not only pushed to: at each keep-alive it reads the log for events after the
 * last one it sent, and sends those first. The instance that holds a stream is not always the
 * one that records: when the object is reset (evicted, aborted, redeployed) while a stream is
 * open, the old instance's timers go on sending keep-alives into it while a new instance runs
 * the run and records into its own hub, which has no listener — the client saw comments and
 * never another event (the stalled client streams of bench/README §4). Reading the log at
 * each keep-alive bounds that to one interval; if the old instance cannot read storage any
 * more, the stream ends, and the client reconnects with Last-Event-ID.
 */
import { errorBody } from "../../src/edge/http/errors";
import type { EventRow, RunStore } from "../storage/run-store";
import { currentEventData } from "../storage/run-view";

const TERMINAL = new Set(["done", "error", "compensated"]);
const FINISHED = new Set(["done", "incomplete", "failed", "cancelled", "compensated"]);
const KEEPALIVE_MS = 15_000;
/** What the driver records when a run halts: pushed to listeners, never stored. */
export const HALTED_SIGNAL = "halted";
export const HALTED_COMMENT = ": halted\n\n";
const encoder = new TextEncoder();

export function formatSse(row: EventRow): string {
  return `id: ${row.id}\nevent: ${row.type}\ndata: ${currentEventData(row.type, row.data)}\n\n`;
}

interface Listener {
  write(chunk: string): void;
  /** Sends a logged event (and notes it as the last one sent). */
  send(row: EventRow): void;
  close(): void;
}

export interface EventHubOptions {
  /** How often an open stream gets a keep-alive comment and reads the log for missed events. */
  keepAliveMs?: number;
}

export class EventHub {
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #keepAliveMs: number;

  constructor(
    private readonly store: RunStore,
    options: EventHubOptions = {},
  ) {
    this.#keepAliveMs = options.keepAliveMs ?? KEEPALIVE_MS;
  }

  record(runId: string, type: string, data: unknown): EventRow | undefined {
    if (type === HALTED_SIGNAL) {
      for (const listener of this.#listeners.get(runId) ?? []) {
        listener.write(HALTED_COMMENT);
      }
      return undefined;
    }
    const row = this.store.appendEvent(runId, { type, data }, Date.now());
    for (const listener of this.#listeners.get(runId) ?? []) {
      listener.send(row);
    }
    return row;
  }

  /** Replays events after `afterId`, then stays open for live ones until the run ends. */
  stream(runId: string, afterId: number, finished: () => boolean): Response {
    // A source the hub pushes into: `enqueue` is a queue append. With a TransformStream's
    // writer instead, one CPU profile of 100 concurrent cycles had a quarter of the object's
    // samples in the writer's native write (bench/README §4).
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let open = true;
    let lastSent = afterId;
    let keepalive: ReturnType<typeof setInterval> | undefined;
    const listeners = this.#listeners.get(runId) ?? new Set<Listener>();
    this.#listeners.set(runId, listeners);
    const stop = () => {
      open = false;
      clearInterval(keepalive);
      listeners.delete(listener);
    };
    const readable = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: stop, // the client went away
    });
    // What one synchronous step writes (a turn's `tool_call`, `pending` and halt; the backlog)
    // goes out as one chunk, at the end of that step: every chunk crosses from this object to
    // the worker and on to the client's socket on its own, and one per frame cost ≈ 2–3 ms of
    // CPU per approval cycle at 100 in parallel (bench/README §4, "The event stream's frames").
    let buffered = "";
    const flush = () => {
      const chunk = buffered;
      buffered = "";
      if (!open || chunk === "") {
        return;
      }
      try {
        controller.enqueue(encoder.encode(chunk));
      } catch {
        stop(); // closed under us: the drive that records an event must never see a listener fail
      }
    };
    const listener: Listener = {
      write: (chunk) => {
        if (!open) {
          return;
        }
        if (buffered === "") {
          queueMicrotask(flush);
        }
        buffered += chunk;
      },
      send: (row) => {
        lastSent = Math.max(lastSent, row.id);
        listener.write(formatSse(row));
        if (isFinal(row)) {
          listener.close();
        }
      },
      close: () => {
        if (!open) {
          return;
        }
        flush();
        stop();
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      },
    };

    const backlog = this.store.eventsAfter(runId, afterId);
    listener.write(": connected\n\n");
    for (const row of backlog) {
      lastSent = row.id;
      listener.write(formatSse(row));
    }
    // Terminal status and its final event are written together, so a finished run's log is complete.
    if (finished()) {
      listener.close();
    } else {
      // Read in the same synchronous step as the backlog, so the two agree.
      if (this.store.run(runId)?.status === "pending") {
        listener.write(HALTED_COMMENT);
      }
      listeners.add(listener);
      keepalive = setInterval(() => {
        this.#catchUp(runId, { listener, after: lastSent });
        listener.write(": keep-alive\n\n");
      }, this.#keepAliveMs);
    }
    return new Response(readable, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        connection: "keep-alive",
      },
    });
  }

  /**
   * Sends what the log holds after the last event this stream sent: events another instance
   * of the object recorded (see the top of this file). A log this instance cannot read any
   * more ends the stream, so the client reconnects to the object that runs now.
   */
  #catchUp(runId: string, { listener, after }: { listener: Listener; after: number }): void {
    let missed: EventRow[];
    try {
      missed = this.store.eventsAfter(runId, after);
    } catch {
      listener.close();
      return;
    }
    for (const row of missed) {
      listener.send(row);
    }
    // The halt it may have missed too (a halt is not logged: it is the run's status).
    if (missed.length > 0 && this.store.run(runId)?.status === "pending") {
      listener.write(HALTED_COMMENT);
    }
  }
}

/** `done` for a pending halt is never recorded, so any done/error closes the stream. */
function isFinal(row: EventRow): boolean {
  return (
    TERMINAL.has(row.type) && !(row.type === "error" && row.data.includes('"recoverable":true'))
  );
}

/**
 * The object's `fetch`: `?runId=` and where to start (`Last-Event-ID`, else `?after=`); an
 * unknown run is the same 404 the routes give, so the worker passes it through.
 */
export function eventsResponse(
  t: { store: RunStore; events: EventHub },
  request: Request,
): Response {
  const url = new URL(request.url);
  const runId = url.searchParams.get("runId") ?? "";
  if (!t.store.run(runId)) {
    return Response.json(errorBody("run_not_found", `no run ${runId}`), { status: 404 });
  }
  const after = Number.parseInt(
    request.headers.get("last-event-id") ?? url.searchParams.get("after") ?? "0",
    10,
  );
  return t.events.stream(runId, Number.isFinite(after) && after > 0 ? after : 0, () =>
    FINISHED.has(t.store.run(runId)?.status ?? ""),
  );
}
