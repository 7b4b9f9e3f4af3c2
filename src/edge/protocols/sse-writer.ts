/**
 * The response side of a protocol stream: a `text/event-stream` body written as the run
 * goes. `pump` runs after the response is returned; a failure inside it becomes the
 * protocol's error frame (the status line is long gone), and a reader that went away
 * ends it quietly. While the run waits (a group deciding, for hours maybe) the stream
 * sends an SSE comment every {@link KEEPALIVE_MS}, so proxies do not cut an idle
 * connection; every SSE parser (the AI SDK's, AG-UI's) skips comments.
 */
const encoder = new TextEncoder();

export const KEEPALIVE_MS = 15_000;
const KEEPALIVE = encoder.encode(": keep-alive\n\n");

export interface FrameSink {
  /** Writes one `data:` frame; false once the reader is gone. */
  send(frame: string): Promise<boolean>;
}

export function sseResponse(
  headers: Record<string, string>,
  pump: (sink: FrameSink) => Promise<void>,
  onFailure: (error: unknown, sink: FrameSink) => Promise<void>,
  trailer?: string,
  keepAliveMs = KEEPALIVE_MS,
): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  let open = true;
  const sink: FrameSink = {
    async send(frame) {
      if (!open) {
        return false;
      }
      try {
        await writer.write(encoder.encode(`data: ${frame}\n\n`));
        return true;
      } catch {
        open = false;
        return false;
      }
    },
  };
  const keepAlive = setInterval(() => {
    if (open) {
      writer.write(KEEPALIVE).catch(() => {
        open = false;
      });
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
    await writer.close().catch(() => {});
  })();
  return new Response(readable, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      ...headers,
    },
  });
}
