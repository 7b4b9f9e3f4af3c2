/**
 * Our legacy HTTP+SSE client transport (src/core/mcp/transport/sse.ts), directly: one
 * delivery per event (the SDK's, over the `eventsource` package, delivered each twice in
 * workerd), the endpoint checks, and a stream that ends failing what waits on it at once.
 * Runs in both the node and workers projects' globs through test/core.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SseClientTransport } from "../../src/core/mcp/transport/sse";

const URL_ = new URL("https://tools.test/sse");

/** A GET answered by an event stream the test writes to; POSTs recorded and accepted. */
function scriptedServer() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
  });
  const posts: Array<{ url: string; headers: Headers; body: unknown }> = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    if (request.method === "GET") {
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    }
    posts.push({ url: request.url, headers: request.headers, body: await request.json() });
    return new Response("Accepted", { status: 202 });
  };
  return {
    fetch,
    posts,
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
  };
}

const open: SseClientTransport[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((t) => t.close()));
});

function transport(fetch: typeof globalThis.fetch, headers: Record<string, string> = {}) {
  const t = new SseClientTransport(URL_, { fetch, headers });
  open.push(t);
  return t;
}

describe("the legacy SSE client transport", () => {
  it("delivers each message event once, and POSTs to the named endpoint with the headers", async () => {
    const server = scriptedServer();
    const t = transport(server.fetch, { "x-key": "k1" });
    const got: JSONRPCMessage[] = [];
    t.onmessage = (message) => void got.push(message);
    server.write("event: endpoint\ndata: /messages?sessionId=s1\n\n");
    await t.start();
    server.write('event: message\ndata: {"jsonrpc":"2.0","id":7,"method":"ping"}\n\n');
    server.write('data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(got).toEqual([
      { jsonrpc: "2.0", id: 7, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    ]);

    t.setProtocolVersion("2025-11-25");
    await t.send({ jsonrpc: "2.0", id: 7, result: {} });
    expect(server.posts).toHaveLength(1);
    expect(server.posts[0]!.url).toBe("https://tools.test/messages?sessionId=s1");
    expect(server.posts[0]!.headers.get("x-key")).toBe("k1");
    expect(server.posts[0]!.headers.get("mcp-protocol-version")).toBe("2025-11-25");
    expect(server.posts[0]!.body).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
  });

  it("refuses an endpoint on another origin (the headers would go there)", async () => {
    const server = scriptedServer();
    const t = transport(server.fetch);
    server.write("event: endpoint\ndata: https://elsewhere.test/messages\n\n");
    await expect(t.start()).rejects.toThrow(
      "SSE error: endpoint origin https://elsewhere.test is not the server's",
    );
  });

  it("a GET that is not 200 fails start with the status", async () => {
    const t = transport(async () => new Response("nope", { status: 403 }));
    await expect(t.start()).rejects.toThrow("SSE error: Non-200 status code (403)");
  });

  it("a stream that ends before the endpoint fails start; one that ends later closes the transport", async () => {
    const early = scriptedServer();
    const t1 = transport(early.fetch);
    early.end();
    await expect(t1.start()).rejects.toThrow("ended before the endpoint event");

    const late = scriptedServer();
    const t2 = transport(late.fetch);
    let closed = 0;
    t2.onclose = () => void closed++;
    late.write("event: endpoint\ndata: /messages\n\n");
    await t2.start();
    late.end();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(1);
    await expect(t2.send({ jsonrpc: "2.0", method: "ping", id: 1 })).rejects.toThrow(
      "Not connected",
    );
  });

  it("a message that is not JSON-RPC is reported, not delivered", async () => {
    const server = scriptedServer();
    const t = transport(server.fetch);
    const got: unknown[] = [];
    const errors: string[] = [];
    t.onmessage = (message) => void got.push(message);
    t.onerror = (error) => void errors.push(error.message);
    server.write("event: endpoint\ndata: /messages\n\n");
    await t.start();
    server.write("event: message\ndata: {not json\n\n");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(got).toEqual([]);
    expect(errors).toEqual([expect.stringContaining("an SSE message is not JSON-RPC")]);
  });
});
