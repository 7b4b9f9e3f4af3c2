/**
 * Server-Sent Events off a fetch body: bytes → text with a streaming `TextDecoder`
 * (a multi-byte character split across chunks is held until it is whole) → events
 * with `eventsource-parser` (any line ending, comments, fields split anywhere).
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ProviderError } from "../errors";
import { onAbort } from "./abort-hooks";

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
 * Reads an SSE body and hands each event to `onEvent` as it completes, synchronously
 * inside the parser (no promise per event: a stream has dozens). `onEvent` returns
 * true to stop reading (the final event came); what it throws ends the read and is
 * rethrown. An event still incomplete when the body ends is dropped (as the SSE spec
 * says), so a cut stream shows up as a missing final event, never as half a JSON
 * payload. Aborting `signal` ends the read early; read errors are thrown as they come.
 */
export async function readSseEvents(
  body: ReadableStream<Uint8Array> | null,
  signal: AbortSignal | undefined,
  onEvent: (event: EventSourceMessage) => boolean,
): Promise<void> {
  if (!body) {
    return;
  }
  let stopped = false;
  let failed = false;
  let failure: unknown;
  const parser = createParser({
    onEvent: (event) => {
      if (stopped || failed) {
        return;
      }
      try {
        stopped = onEvent(event);
      } catch (error) {
        failed = true;
        failure = error;
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  // A fetch that ignores the signal would leave a read pending forever; cancelling the reader ends it.
  const forget = signal
    ? onAbort(signal, () => void reader.cancel(signal.reason).catch(() => {}))
    : undefined;
  try {
    while (!stopped && !signal?.aborted) {
      const { done, value } = await reader.read();
      if (done) {
        parser.feed(decoder.decode());
        break;
      }
      parser.feed(decoder.decode(value, { stream: true }));
      if (failed) {
        throw failure;
      }
    }
    if (failed) {
      throw failure;
    }
  } finally {
    forget?.();
    // Stopping early (after the final event, or on an error) releases the connection.
    await reader.cancel().catch(() => {});
  }
}
