/**
 * Reading the rest of a refused request body, so that the refusal reaches the client.
 *
 * Answering before the body has been read (a 413 after the first 64 KiB of a bigger one)
 * is allowed by HTTP, but not every hop in front of the worker copes with it. Under
 * `wrangler dev` the request passes wrangler's proxy worker, which streams the body on to
 * ours. When ours has read part of the body (or cancelled it) and answers, the connection
 * between the two is dropped with the rest of the body unsent; the proxy's fetch fails, and
 * for any failed non-GET fetch it answers `503 Your worker restarted mid-request` in place of
 * our 413 — or the client's upload is reset before it reads any answer. Measured with 1–5 MB
 * bodies: chunked ones failed every time, Content-Length ones refused before reading now and
 * then; bodies of about 100 KB always got through. Reading the rest and dropping it keeps
 * every hop's connection whole. It is bounded: past {@link MAX_DRAIN_BYTES} the stream is
 * left unread (the proxy may then answer 503 again; deployed, not measured here).
 */

/** The most of a refused body read and dropped; the rest is left unread. */
export const MAX_DRAIN_BYTES = 8 * 1024 * 1024;

/** Reads and discards what is left of `reader`'s stream (at most {@link MAX_DRAIN_BYTES}), then releases it. */
export async function drainBody(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let drained = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        return;
      }
      drained += value.byteLength;
      if (drained > MAX_DRAIN_BYTES) {
        reader.releaseLock(); // the rest is left to the runtime, unread
        return;
      }
    }
  } catch {
    // The client went away mid-body: nothing left to keep whole.
  }
}

/** {@link drainBody} for a body nobody has started reading (a declared length over the limit). */
export async function drainStream(stream: ReadableStream<Uint8Array> | null): Promise<void> {
  if (stream && !stream.locked) {
    await drainBody(stream.getReader());
  }
}
