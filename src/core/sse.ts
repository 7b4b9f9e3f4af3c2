/**
 * Server-Sent Events off a fetch body: bytes → text with a streaming `TextDecoder`
 * (a multi-byte character split across chunks is held until it is whole) → events
 * with `eventsource-parser` (any line ending, comments, fields split anywhere).
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ProviderError } from "./errors";

export type { EventSourceMessage };

/**
 * A provider stream that ended before its final event (`[DONE]`, `message_stop`), or
 * whose connection failed while it was being read. `afterOutput` says whether any of
 * it had already been delivered (text emitted), which is what decides a retry.
 */
export class StreamInterruptedError extends ProviderError {
  readonly code = "stream_interrupted";
  constructor(
    message: string,
    readonly afterOutput: boolean,
    override readonly cause?: unknown,
  ) {
    // Retryable in itself; the caller retries only when nothing was delivered yet.
    super(message, undefined, undefined, !afterOutput);
  }
}

/**
 * Yields the events of an SSE body as they complete. An event still incomplete when
 * the body ends is dropped (as the SSE spec says), so a cut stream shows up as a
 * missing final event, never as half a JSON payload. Aborting `signal` ends the
 * iteration early; read errors are thrown as they come.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array> | null,
  signal?: AbortSignal,
): AsyncGenerator<EventSourceMessage> {
  if (!body) {
    return;
  }
  const ready: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => void ready.push(event) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  // A fetch that ignores the signal would leave a read pending forever; cancelling the reader ends it.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (!signal?.aborted) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      parser.feed(decoder.decode(value, { stream: true }));
      yield* drain(ready);
    }
    if (!signal?.aborted) {
      parser.feed(decoder.decode());
      yield* drain(ready);
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    // Stopping early (after the final event, or on an error) releases the connection.
    await reader.cancel().catch(() => {});
  }
}

function* drain(ready: EventSourceMessage[]) {
  let event = ready.shift();
  while (event !== undefined) {
    yield event;
    event = ready.shift();
  }
}
