/**
 * Links server requests (elicitations) to the tool call that caused them.
 *
 * Over streamable HTTP a server answers a `tools/call` POST with an SSE stream and
 * sends the requests that belong to that call on the same stream. The transport hides
 * which stream a message came from, so this fetch wrapper reads along: a `tools/call`
 * carries our call key in `params._meta` (stripped before it goes on the wire), and
 * every request id seen on its response stream is linked to that call before the SDK
 * sees the bytes. Bytes pass through unchanged.
 */
import type { CallRegistry } from "./calls";

export const CALL_KEY_META = "toolnexus/call";

type Fetch = typeof fetch;

export function linkingFetch(base: Fetch, calls: CallRegistry): Fetch {
  return async (input, init) => {
    let key: string | undefined;
    if (init && typeof init.body === "string" && init.body.includes(CALL_KEY_META)) {
      const stripped = stripCallKey(init.body);
      if (stripped) {
        key = stripped.key;
        init = { ...init, body: stripped.body };
      }
    }
    const response = await base(input, init);
    const call = key === undefined ? undefined : calls.byKey(key);
    const type = response.headers.get("content-type") ?? "";
    if (!call || !response.body || !type.toLowerCase().startsWith("text/event-stream")) {
      return response;
    }
    const body = response.body.pipeThrough(serverRequestIds((id) => calls.link(id, call)));
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function stripCallKey(body: string): { key: string; body: string } | undefined {
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
  return { key, body: JSON.stringify(message) };
}

/** A pass-through byte stream that reports the id of every JSON-RPC request in its SSE events. */
function serverRequestIds(
  onRequest: (id: unknown) => void,
): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  const line = (text: string) => {
    if (text === "") {
      if (data.length > 0) {
        report(data.join("\n"), onRequest);
      }
      data = [];
    } else if (text.startsWith("data:")) {
      data.push(text.slice(text.startsWith("data: ") ? 6 : 5));
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      // A trailing "\r" may be half of "\r\n": keep it for the next chunk.
      const cut = buffer.endsWith("\r") ? buffer.length - 1 : buffer.length;
      const lines = buffer.slice(0, cut).split(/\r\n|\r|\n/);
      buffer = (lines.pop() ?? "") + buffer.slice(cut);
      for (const text of lines) {
        line(text);
      }
      controller.enqueue(chunk);
    },
  });
}

function report(data: string, onRequest: (id: unknown) => void): void {
  try {
    const messages: unknown = JSON.parse(data);
    for (const message of Array.isArray(messages) ? messages : [messages]) {
      const m = message as { method?: unknown; id?: unknown };
      if (typeof m?.method === "string" && m.id !== undefined && m.id !== null) {
        onRequest(m.id);
      }
    }
  } catch {
    // not JSON: not ours to judge; the SDK reports it
  }
}
