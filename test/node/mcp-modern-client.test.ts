/**
 * The toolkit's MCP client per server (issue 41): a server built on the official v2 SDK
 * (@modelcontextprotocol/server, protocol 2026-07-28) and one on the v1 SDK (2025-11-25), both
 * on 127.0.0.1. Against the v2 server the client negotiates 2026-07-28 (`server/discover`, the
 * `_meta` envelope and the standard headers on every request); a tool's `input_required`
 * becomes a pending request that keeps the server's `requestState` exactly, and the
 * re-execution with the answer (after a JSON round trip, as a halted run stores it) sends
 * `inputResponses` with that state and finishes. The v1 server is spoken to as before.
 */
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  acceptedContent,
  createMcpHandler,
  inputRequired,
  McpServer,
} from "@modelcontextprotocol/server";
import {
  createClient,
  createToolkit,
  isPending,
  pendingOf,
  type Request as AgentRequest,
  type Toolkit,
} from "../../src/core";
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { streamableServer, text, type TestServer } from "../helpers/mcp-server";
import { fakeLlm } from "../helpers/fake-llm";

interface Loopback {
  url: string;
  seen: Array<{
    method: string;
    protocolVersion: string | null;
    mcpMethod: string | null;
    body: any;
  }>;
  close(): Promise<void>;
}

/** Serves a web-standard fetch handler on 127.0.0.1 (a real socket: the client's fetch is the global one). */
async function onLoopback(handle: (request: Request) => Promise<Response>): Promise<Loopback> {
  const seen: Loopback["seen"] = [];
  const server: HttpServer = createServer(async (req, res) => {
    const body = await readBody(req);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") {
        headers.set(name, value);
      }
    }
    let parsed: any;
    try {
      parsed = body ? JSON.parse(body) : undefined;
    } catch {
      parsed = undefined;
    }
    seen.push({
      method: parsed?.method ?? req.method ?? "",
      protocolVersion: headers.get("mcp-protocol-version"),
      mcpMethod: headers.get("mcp-method"),
      body: parsed,
    });
    const response = await handle(
      new globalThis.Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers,
        ...(body && req.method !== "GET" && req.method !== "HEAD" ? { body } : {}),
      }) as never,
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const NAME_SCHEMA = {
  type: "object",
  properties: { name: { type: "string", title: "Your name" } },
  required: ["name"],
} as const;

/**
 * A v2 server: `greet` asks the caller's name with input_required; `echo` answers at once;
 * `survey` asks two things at once.
 */
function v2Server() {
  const states: string[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "v2-fixture", version: "1.0.0" });
    server.registerTool("greet", { inputSchema: z.object({}) }, async (_args: any, ctx: any) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "name") as
        | { name?: string }
        | undefined;
      if (answer?.name) {
        // The SDK hands the echoed state over as an accessor.
        const state = ctx.mcpReq.requestState;
        states.push(String(typeof state === "function" ? state() : state));
        return { content: [{ type: "text" as const, text: `Hello, ${answer.name}!` }] };
      }
      return inputRequired({
        inputRequests: {
          name: {
            method: "elicitation/create",
            params: { mode: "form", message: "Your name?", requestedSchema: NAME_SCHEMA } as never,
          },
        },
        requestState: "opaque+state/==",
      }) as never;
    });
    server.registerTool("echo", { inputSchema: z.object({}) }, async () => ({
      content: [{ type: "text" as const, text: "echoed" }],
    }));
    server.registerTool(
      "survey",
      { inputSchema: z.object({}) },
      async () =>
        inputRequired({
          inputRequests: {
            a: {
              method: "elicitation/create",
              params: { mode: "form", message: "A?", requestedSchema: NAME_SCHEMA } as never,
            },
            b: {
              method: "elicitation/create",
              params: { mode: "form", message: "B?", requestedSchema: NAME_SCHEMA } as never,
            },
          },
        }) as never,
    );
    return server;
  });
  return { handler, states };
}

const cleanUp: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  await Promise.all(cleanUp.splice(0).map((c) => c.close()));
});

async function toolkitFor(url: string): Promise<Toolkit> {
  const toolkit = await createToolkit({ mcp: { mcpServers: { fx: { url } } } });
  cleanUp.push(toolkit);
  expect(toolkit.mcpStatus().fx!.status).toBe("connected");
  return toolkit;
}

describe("MCP client: 2026-07-28 with a v2 server, 2025-11-25 with a v1 server", () => {
  it("negotiates 2026-07-28 with the v2 server; input_required suspends and the retry finishes", async () => {
    const { handler, states } = v2Server();
    const server = await onLoopback((request) => handler.fetch(request as never));
    cleanUp.push(server);
    const toolkit = await toolkitFor(server.url);

    expect(server.seen[0]?.method).toBe("server/discover");
    expect(server.seen.some((s) => s.method === "initialize")).toBe(false);
    const list = server.seen.find((s) => s.method === "tools/list");
    expect(list?.protocolVersion).toBe("2026-07-28");
    expect(list?.mcpMethod).toBe("tools/list");
    expect(list?.body.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");

    const first = await toolkit.execute("fx_greet", {}, { callId: "c1" });
    expect(isPending(first)).toBe(true);
    const stored = JSON.parse(JSON.stringify(pendingOf(first))) as AgentRequest;
    expect(stored).toMatchObject({
      kind: "input",
      prompt: "Your name?",
      data: { schema: NAME_SCHEMA, mcpInput: { key: "name", requestState: "opaque+state/==" } },
    });

    const calls = server.seen.filter((s) => s.method === "tools/call").length;
    const done = await toolkit.execute(
      "fx_greet",
      {},
      {
        callId: "c1",
        answer: { id: stored.id, ok: true, data: { name: "Ann" } },
        answered: stored,
      },
    );
    expect(done).toEqual({ output: "Hello, Ann!", isError: false });
    // One more call, carrying the answer and the state byte for byte: nothing else re-ran.
    const retries = server.seen.filter((s) => s.method === "tools/call").slice(calls);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.body.params).toMatchObject({
      requestState: "opaque+state/==",
      inputResponses: { name: { action: "accept", content: { name: "Ann" } } },
    });
    expect(states).toEqual(["opaque+state/=="]);
  });

  it("several inputs at once are an error result naming them", async () => {
    const { handler } = v2Server();
    const server = await onLoopback((request) => handler.fetch(request as never));
    cleanUp.push(server);
    const toolkit = await toolkitFor(server.url);
    const result = await toolkit.execute("fx_survey", {});
    expect(result.isError).toBe(true);
    expect(result.output).toContain("2 inputs at once (a, b)");
  });

  it("speaks 2025-11-25 to a v1 server: initialize after the probe, no envelope", async () => {
    const v1: TestServer = streamableServer({
      tools: [{ name: "echo", run: async (args: any) => text(`echo ${args.message}`) }],
    });
    cleanUp.push(v1);
    const server = await onLoopback((request) => v1.fetch(request));
    cleanUp.push(server);
    const toolkit = await toolkitFor(server.url);
    expect(server.seen.map((s) => s.method).slice(0, 2)).toEqual(["server/discover", "initialize"]);
    expect(v1.initializeParams()[0].protocolVersion).toBe("2025-11-25");
    expect(await toolkit.execute("fx_echo", { message: "hi" })).toEqual({
      output: "echo hi",
      isError: false,
    });
    const call = server.seen.find((s) => s.method === "tools/call");
    expect(call?.protocolVersion).toBe("2025-11-25");
    expect(call?.body.params._meta?.["io.modelcontextprotocol/protocolVersion"]).toBeUndefined();
  });

  it("a traced run's tools/call carries the run's traceparent in _meta, in both revisions", async () => {
    const { handler } = v2Server();
    const modern = await onLoopback((request) => handler.fetch(request as never));
    const v1: TestServer = streamableServer({
      tools: [{ name: "echo", run: async () => text("echoed") }],
    });
    const legacy = await onLoopback((request) => v1.fetch(request));
    cleanUp.push(modern, v1, legacy);
    const toolkit = await createToolkit({
      mcp: { mcpServers: { new: { url: modern.url }, old: { url: legacy.url } } },
    });
    cleanUp.push(toolkit);
    const tracer = new BasicTracerProvider({
      sampler: new AlwaysOnSampler(),
      spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
    }).getTracer("mcp-test");
    const client = createClient({
      baseUrl: "https://llm.example/v1",
      style: "openai",
      model: "fake-model",
      fetch: fakeLlm("openai", [
        {
          toolCalls: [
            { id: "c1", name: "new_echo", args: {} },
            { id: "c2", name: "old_echo", args: {} },
          ],
        },
        { content: "Done." },
      ]).fetch,
      tracer,
    });
    const result = await client.run("echo both", { toolkit });
    expect(result.status).toBe("done");
    const traceparent = result.trace?.traceparent;
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    for (const server of [modern, legacy]) {
      const call = server.seen.find((s) => s.method === "tools/call");
      expect(call?.body.params._meta.traceparent).toBe(traceparent);
    }
  });
});
