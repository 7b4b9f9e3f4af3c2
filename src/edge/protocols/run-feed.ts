/**
 * A run's event log as the chat protocols read it: the thread object's SSE stream (replay
 * after a cursor, then live), plus the one thing the log does not say — that the run has
 * halted. The object says that with an SSE comment (`: halted`, durable/thread/event-hub.ts),
 * live when the run halts and after the backlog when the run is already pending, so the
 * feed never polls: on the comment it asks once for the requests the run waits on.
 *
 * The object writes one fixed frame shape (`id:`, `event:`, one `data:` line of JSON, or a
 * comment), so the frames are split here directly instead of through a general SSE parser.
 */
import type { Request } from "../../core/types";
import type { LoggedEvent, ThreadRpc } from "../protocol";

export type FeedItem =
  | { type: "event"; event: LoggedEvent }
  | { type: "halted"; open: Request[] }
  | { type: "finished"; status: string };

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
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const frames = frameSplitter();
  let lastType = "";
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        yield { type: "finished", status: lastType };
        return;
      }
      for (const frame of frames.push(next.value)) {
        if (frame.startsWith(":")) {
          if (frame === ": halted") {
            yield { type: "halted", open: await options.stub.openRequests(options.runId) };
          }
          continue; // connected, keep-alive
        }
        const event = parseFrame(frame);
        if (event) {
          lastType = event.type;
          yield { type: "event", event };
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * Cuts text arriving in chunks into frames (ended by a blank line). Each chunk is searched
 * once and a frame's pieces joined once: a 20 MB frame arrives in hundreds of chunks, and
 * searching the whole buffer again at each one took minutes.
 */
export function frameSplitter(): { push(chunk: string): string[] } {
  let pieces: string[] = [];
  let endsWithNewline = false; // the frame read so far ends with "\n"
  return {
    push(chunk) {
      const frames: string[] = [];
      if (chunk === "") {
        return frames;
      }
      let from = 0;
      if (endsWithNewline && chunk.startsWith("\n")) {
        // The blank line straddles two chunks: the frame so far, less its "\n", is whole.
        const joined = pieces.join("");
        frames.push(joined.slice(0, -1));
        pieces = [];
        from = 1;
      }
      for (let end = chunk.indexOf("\n\n", from); end >= 0; end = chunk.indexOf("\n\n", from)) {
        pieces.push(chunk.slice(from, end));
        frames.push(pieces.join(""));
        pieces = [];
        from = end + 2;
      }
      if (from < chunk.length) {
        pieces.push(chunk.slice(from));
        endsWithNewline = chunk.endsWith("\n");
      } else {
        endsWithNewline = false;
      }
      return frames;
    },
  };
}

/** One `id:` / `event:` / `data:` frame as the object writes it (durable/thread/event-hub.ts). */
export function parseFrame(frame: string): LoggedEvent | undefined {
  let id = 0;
  let type = "message";
  let data: string | undefined;
  for (const line of frame.split("\n")) {
    if (line.startsWith("data: ")) {
      data = line.slice(6);
    } else if (line.startsWith("event: ")) {
      type = line.slice(7);
    } else if (line.startsWith("id: ")) {
      id = Number(line.slice(4));
    }
  }
  return data === undefined
    ? undefined
    : { id, type, data: JSON.parse(data) as Record<string, unknown> };
}

/**
 * A finished run's complete log (one `runEvents` call) as a feed: the same items a live
 * follow would give, without holding a stream open — a replay is then written in one piece.
 */
export async function* logFeed(events: LoggedEvent[]): AsyncGenerator<FeedItem> {
  for (const event of events) {
    yield { type: "event", event };
  }
  yield { type: "finished", status: events.at(-1)?.type ?? "" };
}

/** Statuses after which a run's log never grows. */
export const FINISHED = new Set(["done", "incomplete", "failed", "cancelled", "compensated"]);
