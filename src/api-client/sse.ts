/**
 * Server-Sent Events over fetch, in any runtime with web streams (browsers, Node ≥ 20,
 * workers): EventSource cannot send an Authorization header.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** The messages of one SSE response body, in order; ends when the body ends. */
export async function* sseMessages(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => queue.push(message) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length > 0) {
        yield queue.shift() as EventSourceMessage;
      }
    }
    parser.feed(decoder.decode());
    yield* queue.splice(0);
  } finally {
    // The consumer stopped early (break, return) or the body failed: release the connection.
    await reader.cancel().catch(() => {});
  }
}
