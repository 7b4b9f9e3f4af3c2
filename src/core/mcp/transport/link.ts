/**
 * Links server requests (elicitations) to the tool call that caused them.
 *
 * Over streamable HTTP a server answers a `tools/call` POST with an SSE stream and
 * sends the requests that belong to that call on the same stream. The transport hides
 * which stream a message came from, so this fetch wrapper reads along: a `tools/call`
 * carries our call key in `params._meta` (stripped before it goes on the wire), and
 * every request id seen on its response stream is linked to that call before the SDK
 * sees the bytes. Bytes pass through unchanged. A stream that ends without the call's
 * reply, and without an event id to resume from, fails the call at once: nothing else
 * would ever answer it, and waiting for the timeout helps no one.
 */
import type { CallRegistry } from "../calls";

export const CALL_KEY_META = "toolnexus/call";

type Fetch = typeof fetch;

export function linkingFetch(base: Fetch, calls: CallRegistry): Fetch {
  return async (input, init) => {
    let sent: { key: string; requestId: unknown } | undefined;
    if (init && typeof init.body === "string" && init.body.includes(CALL_KEY_META)) {
      const stripped = stripCallKey(init.body);
      if (stripped) {
        sent = stripped;
        init = { ...init, body: stripped.body };
      }
    }
    const response = await base(input, init);
    const call = sent === undefined ? undefined : calls.byKey(sent.key);
    const type = response.headers.get("content-type") ?? "";
    if (!sent || !call || !response.body || !type.toLowerCase().startsWith("text/event-stream")) {
      return response;
    }
    const requestId = JSON.stringify(sent.requestId);
    let replied = false;
    let resumable = false;
    const body = readAlong(
      response.body,
      (message) => {
        if (message === "id") {
          resumable = true;
        } else if (typeof message.method === "string" && message.id != null) {
          calls.link(message.id, call);
        } else if (message.method === undefined && JSON.stringify(message.id) === requestId) {
          replied = true;
        }
      },
      () => {
        // With an event id the SDK reconnects and the reply may still come (resumability).
        if (!replied && !resumable) {
          call.fail(new Error("the server closed the response stream without a reply"));
        }
      },
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function stripCallKey(body: string): { key: string; requestId: unknown; body: string } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  const meta = (message as { params?: { _meta?: Record<string, unknown> } })?.params?._meta;
  const key = meta?.[CALL_KEY_META];
  if (!meta || typeof key !== "string") {
    return undefined;
  }
  delete meta[CALL_KEY_META];
  if (Object.keys(meta).length === 0) {
    delete (message as { params: { _meta?: unknown } }).params._meta;
  }
  return { key, requestId: (message as { id?: unknown }).id, body: JSON.stringify(message) };
}

type Seen = { method?: unknown; id?: unknown } | "id";

/**
 * The same bytes, read along: each JSON-RPC message in the SSE events (and `"id"` for an
 * event with an id) goes to `onSeen`, `onEnd` runs when the stream ends or breaks.
 */
function readAlong(
  source: ReadableStream<Uint8Array>,
  onSeen: (seen: Seen) => void,
  onEnd: () => void,
) {
  const reader = source.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  const line = (text: string) => {
    if (text.startsWith("data:")) {
      data.push(text.slice(text.startsWith("data: ") ? 6 : 5));
    } else if (text.startsWith("id:") && text.slice(3).trim()) {
      onSeen("id");
    } else if (text === "" && data.length > 0) {
      try {
        for (const message of [JSON.parse(data.join("\n"))].flat()) {
          if (typeof message === "object" && message !== null) {
            onSeen(message);
          }
        }
      } catch {
        // not JSON: not ours to judge; the SDK reports it
      }
      data = [];
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        onEnd();
        controller.error(error);
        return;
      }
      if (chunk.done) {
        onEnd();
        controller.close();
        return;
      }
      buffer += decoder.decode(chunk.value, { stream: true });
      // A trailing "\r" may be half of "\r\n": keep it for the next chunk.
      const cut = buffer.endsWith("\r") ? buffer.length - 1 : buffer.length;
      const lines = buffer.slice(0, cut).split(/\r\n|\r|\n/);
      buffer = (lines.pop() ?? "") + buffer.slice(cut);
      lines.forEach(line);
      controller.enqueue(chunk.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
