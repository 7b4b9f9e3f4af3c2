/**
 * The client side of MCP's legacy HTTP+SSE transport (protocol 2024-11-05): GET the URL
 * for one event stream, whose first `endpoint` event names where to POST; every server
 * message arrives on that stream as a `message` event.
 *
 * Ours instead of the SDK's `SSEClientTransport` because that one rides on the
 * `eventsource` package, which calls `onmessage` itself and then dispatches the same
 * event; workerd's `EventTarget.dispatchEvent` also calls `on<type>` properties, so in a
 * Worker every server message was delivered twice (an elicitation answered twice). Here
 * the stream is read directly with the same SSE reader the providers use.
 *
 * A stream that ends closes the transport: the legacy protocol has no resumption (a new
 * GET is a new session), so pending requests fail at once instead of at their timeout.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../../errors";
import { readSseEvents } from "../../streaming/sse";

export interface SseTransportOptions {
  fetch: typeof fetch;
  headers: Record<string, string>;
}

/** What the SDK's transport threw too, so a fallback's reason reads the same. */
export class SseError extends Error {
  constructor(
    readonly code: number | undefined,
    message: string,
  ) {
    super(`SSE error: ${message}`);
    this.name = "SseError";
  }
}

export class SseClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #url: URL;
  readonly #options: SseTransportOptions;
  readonly #abort = new AbortController();
  #endpoint: URL | undefined;
  #protocolVersion: string | undefined;
  #closed = false;

  constructor(url: URL, options: SseTransportOptions) {
    this.#url = url;
    this.#options = options;
  }

  /** Resolves once the server has named its POST endpoint. */
  async start(): Promise<void> {
    const response = await this.#options.fetch(this.#url, {
      method: "GET",
      headers: { ...this.#headers(), accept: "text/event-stream" },
      signal: this.#abort.signal,
    });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw new SseError(response.status, `Non-200 status code (${response.status})`);
    }
    let resolve = () => {};
    let reject: (error: Error) => void = () => {};
    const named = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const reading = readSseEvents(response.body, this.#abort.signal, (event) => {
      if (event.event === "endpoint") {
        this.#setEndpoint(event.data, resolve, reject);
      } else if (event.event === undefined || event.event === "message") {
        this.#deliver(event.data);
      }
      return false;
    });
    reading.then(
      () => reject(new SseError(undefined, "the event stream ended before the endpoint event")),
      (error) => {
        reject(new SseError(undefined, errorMessage(error)));
        if (!this.#abort.signal.aborted) {
          this.onerror?.(error instanceof Error ? error : new Error(errorMessage(error)));
        }
      },
    );
    void reading.finally(() => this.#finish()).catch(() => {});
    await named;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#endpoint || this.#closed) {
      throw new Error("Not connected");
    }
    const response = await this.#options.fetch(this.#endpoint, {
      method: "POST",
      headers: { ...this.#headers(), "content-type": "application/json" },
      body: JSON.stringify(message),
      signal: this.#abort.signal,
    });
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      throw new Error(`Error POSTing to endpoint (HTTP ${response.status}): ${text}`);
    }
    await response.body?.cancel().catch(() => {});
  }

  async close(): Promise<void> {
    this.#abort.abort();
    this.#finish();
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  #headers(): Record<string, string> {
    const headers = { ...this.#options.headers };
    if (this.#protocolVersion) {
      headers["mcp-protocol-version"] = this.#protocolVersion;
    }
    return headers;
  }

  #setEndpoint(data: string, resolve: () => void, reject: (error: Error) => void): void {
    let endpoint: URL;
    try {
      endpoint = new URL(data, this.#url);
    } catch {
      reject(new SseError(undefined, `the endpoint event is not a URL: ${JSON.stringify(data)}`));
      return;
    }
    // A server may only point at itself: messages carry the same headers (credentials).
    if (endpoint.origin !== this.#url.origin) {
      reject(new SseError(undefined, `endpoint origin ${endpoint.origin} is not the server's`));
      return;
    }
    this.#endpoint = endpoint;
    resolve();
  }

  #deliver(data: string): void {
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(data));
    } catch (error) {
      this.onerror?.(new Error(`an SSE message is not JSON-RPC: ${errorMessage(error)}`));
      return;
    }
    this.onmessage?.(message);
  }

  #finish(): void {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    this.#abort.abort();
    this.onclose?.();
  }
}
