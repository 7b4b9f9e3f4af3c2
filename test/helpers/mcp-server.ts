/**
 * Real MCP servers for tests, built with the official SDK and served through an
 * injected `fetch` (no network):
 *
 * - `streamableServer`: the SDK's `Server` behind its web-standard streamable HTTP
 *   transport (stateful sessions, SSE responses, standalone GET stream).
 * - `sseOnlyServer`: the same `Server` behind a small hand-written transport for the
 *   legacy HTTP+SSE protocol (the SDK's own SSE server transport needs node:http):
 *   GET opens the event stream and announces the POST endpoint; a streamable POST to
 *   the main URL gets 405, as an SSE-only server answers.
 *
 * `routeFetch` sends each request to the server registered for its origin; an unknown
 * origin rejects like a network error (a server that is down).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";

type ElicitParams =
  | (Omit<ElicitRequestFormParams, "mode"> & { mode?: "form" })
  | ElicitRequestURLParams;

export interface ToolIo {
  /** Elicits on the call's own response stream (a request related to the call). */
  elicit(params: ElicitParams): Promise<ElicitResult>;
  /** Elicits without relating it to the call (it travels on the standalone GET stream). */
  elicitUnrelated(params: ElicitParams): Promise<ElicitResult>;
  signal: AbortSignal;
}

export interface TestTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** More definition fields, sent as given (`execution`, or a deliberately malformed field). */
  definition?: Record<string, unknown>;
  run(args: Record<string, unknown>, io: ToolIo): Promise<CallToolResult> | CallToolResult;
}

export interface TestServerOptions {
  tools: TestTool[];
  /** Tools per `tools/list` page (default: all on one page). */
  pageSize?: number;
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: Headers;
  body: any;
}

export interface TestServer {
  fetch: typeof fetch;
  /** Every HTTP request received, in order. */
  requests: SeenRequest[];
  /** Every JSON-RPC message the client sent (requests, notifications and responses). */
  messages(): any[];
  /** The params of each `initialize` request. */
  initializeParams(): any[];
  /** Elicitation results the server received, in order. */
  elicitResults: ElicitResult[];
  close(): Promise<void>;
}

export const text = (value: string): CallToolResult => ({
  content: [{ type: "text", text: value }],
});

function buildServer(options: TestServerOptions, elicitResults: ElicitResult[]): Server {
  const server = new Server(
    { name: "test-server", version: "1.0.0" },
    { capabilities: { tools: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const size = options.pageSize ?? options.tools.length;
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start =
      request.params?.cursor === undefined ? 0 : Number(request.params.cursor.replace("page-", ""));
    const page = options.tools.slice(start, start + size).map((t) => ({
      name: t.name,
      description: t.description ?? `the ${t.name} tool`,
      inputSchema: (t.inputSchema ?? { type: "object", properties: {} }) as { type: "object" },
      ...(t.outputSchema ? { outputSchema: t.outputSchema as { type: "object" } } : {}),
      ...t.definition,
    }));
    const next = start + size;
    return next < options.tools.length
      ? { tools: page, nextCursor: `page-${next}` }
      : { tools: page };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = options.tools.find((t) => t.name === request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
    }
    const record = (result: ElicitResult) => (elicitResults.push(result), result);
    const io: ToolIo = {
      elicit: async (params) =>
        record(
          await extra.sendRequest(
            { method: "elicitation/create", params: params as ElicitRequestFormParams },
            ElicitResultSchema,
            { timeout: 600_000 },
          ),
        ),
      elicitUnrelated: async (params) =>
        record(await server.elicitInput(params as ElicitRequestFormParams, { timeout: 600_000 })),
      signal: extra.signal,
    };
    return tool.run((request.params.arguments ?? {}) as Record<string, unknown>, io);
  });
  return server;
}

async function readSeen(request: Request): Promise<SeenRequest> {
  const raw = request.method === "POST" ? await request.clone().text() : "";
  let body: unknown;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    body = raw;
  }
  return { method: request.method, url: request.url, headers: request.headers, body };
}

function common(
  requests: SeenRequest[],
  elicitResults: ElicitResult[],
  closeAll: () => Promise<void>,
) {
  const messages = () =>
    requests.flatMap((r) =>
      r.body === undefined ? [] : Array.isArray(r.body) ? r.body : [r.body],
    );
  return {
    requests,
    elicitResults,
    messages,
    initializeParams: () =>
      messages()
        .filter((m) => m.method === "initialize")
        .map((m) => m.params),
    close: closeAll,
  };
}

/** The SDK server over web-standard streamable HTTP, one transport per session. */
export function streamableServer(options: TestServerOptions): TestServer {
  const requests: SeenRequest[] = [];
  const elicitResults: ElicitResult[] = [];
  const sessions = new Map<
    string,
    { server: Server; transport: WebStandardStreamableHTTPServerTransport }
  >();

  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    requests.push(await readSeen(request));
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const session = sessions.get(id);
      if (!session) {
        return new Response("unknown session", { status: 404 });
      }
      return session.transport.handleRequest(request);
    }
    const server = buildServer(options, elicitResults);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      keepAliveMs: 0,
      onsessioninitialized: (sid) => void sessions.set(sid, { server, transport }),
      onsessionclosed: (sid) => void sessions.delete(sid),
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  };

  return {
    fetch,
    ...common(requests, elicitResults, async () => {
      await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
      sessions.clear();
    }),
  };
}

/** A legacy HTTP+SSE transport for the server side: one event stream per session. */
class SseSessionTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private controller?: ReadableStreamDefaultController<Uint8Array>;
  private readonly encoder = new TextEncoder();
  readonly stream: ReadableStream<Uint8Array>;

  constructor(
    readonly sessionId: string,
    endpoint: string,
  ) {
    this.stream = new ReadableStream({
      start: (controller) => {
        this.controller = controller;
        this.write(`event: endpoint\ndata: ${endpoint}\n\n`);
      },
      cancel: () => void this.close(),
    });
  }
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
  async close(): Promise<void> {
    try {
      this.controller?.close();
    } catch {
      // already closed
    }
    this.controller = undefined;
    this.onclose?.();
  }
  private write(text: string): void {
    this.controller?.enqueue(this.encoder.encode(text));
  }
}

/** The SDK server behind the legacy HTTP+SSE protocol only (GET <url> for events, POST <endpoint>). */
export function sseOnlyServer(options: TestServerOptions): TestServer {
  const requests: SeenRequest[] = [];
  const elicitResults: ElicitResult[] = [];
  const sessions = new Map<string, { server: Server; transport: SseSessionTransport }>();

  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const seen = await readSeen(request);
    requests.push(seen);
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === "/sse") {
      const sessionId = crypto.randomUUID();
      const transport = new SseSessionTransport(sessionId, `/messages?sessionId=${sessionId}`);
      const server = buildServer(options, elicitResults);
      sessions.set(sessionId, { server, transport });
      transport.onclose = () => void sessions.delete(sessionId);
      await server.connect(transport);
      return new Response(transport.stream, {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      });
    }
    if (request.method === "POST" && url.pathname === "/messages") {
      const session = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (!session) {
        return new Response("unknown session", { status: 404 });
      }
      session.transport.onmessage?.(seen.body as JSONRPCMessage);
      return new Response("Accepted", { status: 202 });
    }
    return new Response("Method Not Allowed", { status: 405, headers: { allow: "GET" } });
  };

  return {
    fetch,
    ...common(requests, elicitResults, async () => {
      await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
      sessions.clear();
    }),
  };
}

/** Routes by origin; an unknown origin rejects like a server that is down. */
export function routeFetch(routes: Record<string, typeof fetch>): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const route = routes[url.origin];
    if (!route) {
      throw new TypeError(`fetch failed: connect ECONNREFUSED ${url.host}`);
    }
    return route(input, init);
  };
}

/** A server that accepts connections and never answers (honours the abort signal). */
export const hangingFetch: typeof fetch = (_input, init) =>
  new Promise((_, reject) => {
    const signal = init?.signal;
    signal?.addEventListener("abort", () => reject(signal.reason ?? new Error("aborted")), {
      once: true,
    });
  });
