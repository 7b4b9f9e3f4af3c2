/**
 * A run's event log as the chat protocols read it: the thread object's SSE stream (replay
 * after a cursor, then live), plus the one thing that stream does not say — that the run
 * has halted. A halt records no event (`done` is only for finished runs), so when the log
 * goes quiet after a suspension, a decision or a tool result, the feed asks the object for
 * the run's status (backing off while the turn's other calls run) and reports `halted`
 * with the requests the run waits on.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { Request } from "../../core/types";
import type { LoggedEvent, ThreadRpc } from "../protocol";

export type FeedItem =
  | { type: "event"; event: LoggedEvent }
  | { type: "halted"; open: Request[] }
  | { type: "finished"; status: string };

const FIRST_CHECK_MS = 10;
const MAX_CHECK_MS = 1_000;

export interface FollowOptions {
  stub: ThreadRpc;
  runId: string;
  /** Events after this id (0: the whole run). */
  after: number;
  signal?: AbortSignal;
}

/**
 * The run's events after `after`, then live; a `halted` item each time the run stops on
 * requests, `finished` when the log ends (done, or a final error). Stop iterating to let go.
 */
export async function* followRun(options: FollowOptions): AsyncGenerator<FeedItem> {
  const url = new URL("https://thread/events");
  url.searchParams.set("runId", options.runId);
  const response = await options.stub.fetch(url.toString(), {
    headers: { "last-event-id": String(options.after) },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!response.ok || !response.body) {
    throw new Error(`the event log of ${options.runId} answered ${response.status}`);
  }
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  let read: ReturnType<typeof reader.read> | undefined;
  let checkIn: number | undefined; // set while a halt may be on its way
  let lastType = "";
  try {
    for (;;) {
      read ??= reader.read();
      const next = checkIn === undefined ? await read : await timed(read, checkIn);
      if (next === "timeout") {
        const run = await options.stub.getRun(options.runId);
        if (run?.status === "pending") {
          checkIn = undefined;
          yield { type: "halted", open: await options.stub.openRequests(options.runId) };
        } else if (run?.status === "running") {
          checkIn = Math.min((checkIn ?? FIRST_CHECK_MS) * 2, MAX_CHECK_MS);
        } else {
          checkIn = undefined; // finished: its last event is on its way
        }
        continue;
      }
      read = undefined;
      if (next.done) {
        yield { type: "finished", status: lastType };
        return;
      }
      const event: LoggedEvent = {
        id: Number(next.value.id),
        type: next.value.event ?? "message",
        data: JSON.parse(next.value.data) as Record<string, unknown>,
      };
      lastType = event.type;
      // A halt may follow a suspension, or a resumed turn whose sibling call still waits;
      // text deltas keep the current pace (no status check per token).
      if (event.type === "pending" || event.type === "resumed" || event.type === "tool_result") {
        checkIn = FIRST_CHECK_MS;
      }
      yield { type: "event", event };
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function timed<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
