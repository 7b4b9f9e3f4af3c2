/**
 * The response side of a protocol stream: a `text/event-stream` body written as the run
 * goes. `pump` runs after the response is returned; a failure inside it becomes the
 * protocol's error frame (the status line is long gone), and a reader that went away
 * ends it quietly. While the run waits (a group deciding, for hours maybe) the stream
 * sends an SSE comment every {@link KEEPALIVE_MS}, so proxies do not cut an idle
 * connection; every SSE parser (the AI SDK's, AG-UI's) skips comments.
 *
 * Frames are coalesced: while one write is in flight, the frames sent meanwhile wait and go
 * out together in the next write (a replay's backlog leaves in a few chunks, not one per
 * frame, which measured ≈ 0.5 ms per frame under workerd). A sender waits only when more
 * than {@link MAX_PENDING_CHARS} are queued, so a slow reader still slows the pump down.
 */
const encoder = new TextEncoder();

export const KEEPALIVE_MS = 15_000;
const KEEPALIVE = ": keep-alive\n\n";
const MAX_PENDING_CHARS = 64 * 1024;

export interface FrameSink {
  /** Writes one `data:` frame; false once the reader is gone. */
  send(frame: string): Promise<boolean>;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** How a stream of frames is answered: extra headers, what a failed pump sends, a last frame. */
export interface SseFraming {
  headers?: Record<string, string>;
  /** The pump threw: what the stream still says (its error event). */
  onFailure: (error: unknown, sink: FrameSink) => Promise<void>;
  /** Sent after the pump's frames (`[DONE]` for the AI SDK). */
  trailer?: string;
  /** Keep-alive comments while the pump waits (default 15 s); `sseWhole` sends none. */
  keepAliveMs?: number;
}

/**
 * The same frames as {@link sseResponse}, for a pump that never waits on the run (a finished
 * run's log): collected first, answered as one body.
 */
export async function sseWhole(
  pump: (sink: FrameSink) => Promise<void>,
  { headers = {}, onFailure, trailer }: SseFraming,
): Promise<Response> {
  let body = "";
  const sink: FrameSink = {
    async send(frame) {
      body += `data: ${frame}\n\n`;
      return true;
    },
  };
  try {
    await pump(sink);
  } catch (error) {
    await onFailure(error, sink).catch(() => {});
  }
  if (trailer !== undefined) {
    await sink.send(trailer);
  }
  return new Response(body, { headers: { ...SSE_HEADERS, ...headers } });
}

export function sseResponse(
  pump: (sink: FrameSink) => Promise<void>,
  { headers = {}, onFailure, trailer, keepAliveMs = KEEPALIVE_MS }: SseFraming,
): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  let open = true;
  let pending = "";
  let flushing: Promise<void> | undefined;
  const flush = async () => {
    while (open && pending) {
      const chunk = pending;
      pending = "";
      try {
        await writer.write(encoder.encode(chunk));
      } catch {
        open = false;
      }
    }
    flushing = undefined;
  };
  const enqueue = (text: string) => {
    pending += text;
    flushing ??= flush();
  };
  const sink: FrameSink = {
    async send(frame) {
      if (!open) {
        return false;
      }
      enqueue(`data: ${frame}\n\n`);
      if (pending.length > MAX_PENDING_CHARS) {
        await flushing;
      }
      return open;
    },
  };
  const keepAlive = setInterval(() => {
    if (open) {
      enqueue(KEEPALIVE);
    }
  }, keepAliveMs);
  void (async () => {
    try {
      await pump(sink);
    } catch (error) {
      await onFailure(error, sink).catch(() => {});
    } finally {
      clearInterval(keepAlive);
    }
    if (open && trailer !== undefined) {
      await sink.send(trailer);
    }
    await flushing;
    await writer.close().catch(() => {});
  })();
  return new Response(readable, { headers: { ...SSE_HEADERS, ...headers } });
}
