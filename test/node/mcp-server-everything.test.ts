/**
 * The toolkit against `@modelcontextprotocol/server-everything` (the MCP project's own
 * reference server, code no one here wrote), hosted by this test on 127.0.0.1 with the
 * SDK's streamable HTTP server transport, as its own `streamableHttp` entry point does
 * (that one listens on every interface, so the test does not run it): the form and URL
 * elicitation tools, the -32042 error path through a run, and the long-running tool.
 */
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import express from "express";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerOutput,
  createInProcessClient,
  createToolkit,
  type Request,
  type Toolkit,
  type WaitFor,
} from "../../src/core";
import type { GeneratedMessage } from "../../src/core/client";

// Not a typed export of the package: loaded by path, typed here by what the test uses.
const FACTORY = "@modelcontextprotocol/server-everything/dist/server/index.js";
type Factory = () => {
  server: { connect(t: unknown): Promise<void>; server: { onclose?: () => void } };
  cleanup(sessionId?: string): void;
};

let http: HttpServer;
let url: string;
const sessions = new Map<string, StreamableHTTPServerTransport>();

beforeAll(async () => {
  const { createServer } = (await import(FACTORY as string)) as { createServer: Factory };
  const app = express();
  app.use(express.json());
  app.all("/mcp", async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) {
      await known.handleRequest(req, res, req.body);
      return;
    }
    if (req.method !== "POST" || id !== undefined) {
      res.status(400).json({ jsonrpc: "2.0", error: { code: -32000, message: "no session" } });
      return;
    }
    const { server, cleanup } = createServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    server.server.onclose = () => {
      if (transport.sessionId) {
        sessions.delete(transport.sessionId);
        cleanup(transport.sessionId);
      }
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  http = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await Promise.allSettled([...sessions.values()].map((t) => t.close()));
  await new Promise((resolve) => http?.close(resolve));
});

async function everything(waitFor?: WaitFor, timeout?: number): Promise<Toolkit> {
  const toolkit = await createToolkit({
    mcp: { mcpServers: { everything: { url, ...(timeout ? { timeout } : {}) } } },
    ...(waitFor ? { waitFor } : {}),
  });
  expect(toolkit.mcpStatus().everything).toMatchObject({
    status: "connected",
    transport: "streamable-http",
  });
  return toolkit;
}

describe("@modelcontextprotocol/server-everything through the toolkit", () => {
  it("form elicitation: the schema reaches waitFor; omitted fields get the schema's defaults (SEP-1034)", async () => {
    const asked: Request[] = [];
    const toolkit = await everything((request) => {
      asked.push(request);
      return answerOutput(request.id, { name: "Ada Lovelace" });
    });
    try {
      const result = await toolkit.execute("everything_trigger-elicitation-request", {});
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        kind: "input",
        data: { server: "everything", schema: { required: ["name"] } },
      });
      expect(result.isError).toBe(false);
      expect(result.output).toContain("✅ User provided the requested information!");
      expect(result.output).toContain("- Name: Ada Lovelace");
      // The raw result the server echoes back carries the defaults filled in.
      expect(result.output).toContain('"firstLine": "It was a dark and stormy night."');
      expect(result.output).toContain('"integer": 42');
    } finally {
      await toolkit.close();
    }
  });

  it("URL elicitation (request path): an authorization request with the server's URL", async () => {
    const asked: Request[] = [];
    const toolkit = await everything((request) => (asked.push(request), answerOutput(request.id)));
    try {
      const result = await toolkit.execute("everything_trigger-url-elicitation", {
        url: "https://auth.example.com/consent",
        message: "Approve the demo",
      });
      expect(asked).toEqual([
        expect.objectContaining({
          kind: "authorization",
          prompt: "Approve the demo",
          url: "https://auth.example.com/consent",
        }),
      ]);
      expect(result.isError).toBe(false);
      expect(result.output).toMatch(/accept/i);
    } finally {
      await toolkit.close();
    }
  });

  it("URL elicitation (error path, -32042): the run suspends on the server's URL, then the call is retried and finishes", async () => {
    const asked: Request[] = [];
    const toolkit = await everything();
    const script: GeneratedMessage[] = [
      {
        toolCalls: [
          {
            id: "call-1",
            name: "everything_trigger-url-elicitation",
            arguments: { url: "https://auth.example.com/after", errorPath: true },
          },
        ],
      },
      { content: "Done." },
    ];
    const client = createInProcessClient({
      model: "m",
      generate: () => script.shift()!,
      // The client's waitFor answers both: the -32042 prerequisite, and the retry's elicitation.
      waitFor: (request) => (asked.push(request), answerOutput(request.id)),
    });
    try {
      const result = await client.run("do it", { toolkit });
      expect(result.status).toBe("done");
      expect(asked.map((r) => [r.kind, r.url])).toEqual([
        ["authorization", "https://modelcontextprotocol.io"],
        ["authorization", "https://auth.example.com/after"],
      ]);
      expect(asked[0]?.id).toBe("urlreq_call-1");
      expect(result.toolCalls[0]).toMatchObject({ isError: false });
      expect(result.toolCalls[0]?.output).not.toMatch(/MCP error/);
    } finally {
      await toolkit.close();
    }
  });

  it("the long-running tool finishes (progress notifications on the way do not disturb the call)", async () => {
    const toolkit = await everything();
    try {
      const result = await toolkit.execute("everything_trigger-long-running-operation", {
        duration: 0.4,
        steps: 4,
      });
      expect(result).toEqual({
        output: "Long running operation completed. Duration: 0.4 seconds, Steps: 4.",
        isError: false,
      });
    } finally {
      await toolkit.close();
    }
  });
});
