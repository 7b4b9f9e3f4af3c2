/**
 * The response side of a protocol stream: a `text/event-stream` body written as the run
 * goes. `pump` runs after the response is returned; a failure inside it becomes the
 * protocol's error frame (the status line is long gone), and a reader that went away
 * ends it quietly.
 */
const encoder = new TextEncoder();

export interface FrameSink {
  /** Writes one `data:` frame; false once the reader is gone. */
  send(frame: string): Promise<boolean>;
}

export function sseResponse(
  headers: Record<string, string>,
  pump: (sink: FrameSink) => Promise<void>,
  onFailure: (error: unknown, sink: FrameSink) => Promise<void>,
  trailer?: string,
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
  void (async () => {
    try {
      await pump(sink);
    } catch (error) {
      await onFailure(error, sink).catch(() => {});
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
