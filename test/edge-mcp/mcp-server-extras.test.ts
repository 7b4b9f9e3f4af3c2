// The MCP server's (src/edge/protocols/mcp-server) edges beyond test/edge/mcp-server.test.ts:
// the 1 MiB body limit, a missing MCP_SESSIONS binding, a session whose object no longer
// holds it (eviction), URL-mode elicitation for an `authorization` request, and plain tools
// an agent exposes (SPEC §7C), including the refusal of one with approval rules.
import { describe, expect, it } from "vitest";
import { createExecutionContext, env, SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import worker from "../fixtures/mcp-edge-worker";
import { SIGNIN_PROMPT, SIGNIN_URL } from "../fixtures/protocol-agents";
import { defineTool } from "../../src/core/tools/define";
import { requireApproval } from "../../src/core/tools/approval";
import { defineAgent } from "../../src/edge/agent";
import { ConfigError } from "../../src/edge/settings";
import { plainTools } from "../../src/edge/protocols/mcp-server/plain-tools";
import { API_TOKEN, BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";

const selfFetch: typeof fetch = (input, init) =>
  SELF.fetch(new Request(input as RequestInfo, init));

const MCP_HEADERS = {
  authorization: `Bearer ${API_TOKEN}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

const initialize = (id = 1) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });

async function connect(elicitation: Record<string, object> = {}) {
  const client = new Client(
    { name: "test-host", version: "1.0.0" },
    { capabilities: { elicitation } },
  );
  const asked: Record<string, unknown>[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params as Record<string, unknown>);
    return { action: "accept" };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      fetch: selfFetch,
      requestInit: { headers: { authorization: `Bearer ${API_TOKEN}` } },
    }),
  );
  return { client, asked };
}

const textOf = (result: any): string =>
  result.content.map((c: { text: string }) => c.text).join("\n");

describe("/mcp limits and sessions", () => {
  it("refuses a body over 1 MiB with 413, before any session is made", async () => {
    const response = await SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { pad: "x".repeat(1024 * 1024) },
      }),
    });
    expect(response.status).toBe(413);
    expect((await response.json<any>()).error.code).toBe("body_too_large");
    expect(response.headers.get("mcp-session-id")).toBeNull();
  });

  it("a body just under 1 MiB is read (the limit is the body, not the call)", async () => {
    // Padding in the client's name: the SDK accepts any string there.
    const body = initialize();
    const filler = 1024 * 1024 - new TextEncoder().encode(body).length;
    const padded = body.replace('"name":"raw"', `"name":"raw${"x".repeat(filler)}"`);
    expect(new TextEncoder().encode(padded).length).toBeLessThanOrEqual(1024 * 1024);
    const response = await SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: padded,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toMatch(/^mcp_[a-f0-9]{32}$/);
  });

  it("answers 500 config_error naming MCP_SESSIONS when the binding is missing", async () => {
    const response = await worker.fetch!(
      new Request(`${BASE}/mcp`, {
        method: "POST",
        headers: MCP_HEADERS,
        body: initialize(),
      }) as never,
      { ...env, MCP_SESSIONS: undefined } as never,
      createExecutionContext(),
    );
    expect(response.status).toBe(500);
    const body = await response.json<any>();
    expect(body.error.code).toBe("config_error");
    expect(body.error.message).toMatch(/^MCP_SESSIONS is not bound/);
    expect(body.error.message).toContain('new_sqlite_classes = ["McpSessionObject"]');
  });

  it("a session its object does not hold (evicted, or never made) is 404 -32001: initialize again", async () => {
    const response = await SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": `mcp_${"a".repeat(32)}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(404);
    const body = await response.json<any>();
    expect(body.error.code).toBe(-32001);
    expect(body.error.message).toMatch(/initialize a new session/);
    // A first request that is not initialize is 400, not a made-up session.
    const first = await SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list", params: {} }),
    });
    expect(first.status).toBe(400);
  });
});

describe("URL-mode elicitation", () => {
  it("an authorization request becomes elicitation/create in url mode; the call returns pending, done once decided", async () => {
    const { client, asked } = await connect({ form: {}, url: {} });
    const result = await client.callTool({ name: "signin", arguments: { prompt: "sign me in" } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: "url", url: SIGNIN_URL, message: SIGNIN_PROMPT });
    expect(typeof asked[0]!.elicitationId).toBe("string");
    expect(result.isError).toBe(false);
    const text = textOf(result);
    expect(text).toContain("pending");
    const runId = /Run (th_[a-f0-9]+\.run_[a-f0-9]{20})/.exec(text)![1]!;
    const run = await getRun(runId);
    expect(run.pending).toMatchObject({ kind: "authorization", url: SIGNIN_URL });
    expect(asked[0]!.elicitationId).toBe(run.pending!.id);
    // The sign-in finishes out of band: the identity provider's callback decides the request.
    await signedDecision({ runId, requestId: run.pending!.id, decision: "approve" });
    await waitForStatus(runId, ["done"]);
    const later = await client.callTool({ name: "get_run", arguments: { runId } });
    expect(textOf(later)).toContain("Signed in to the CRM");
    await client.close();
  });

  it("a client with form elicitation only gets the pending result, never a url elicitation", async () => {
    const { client, asked } = await connect({ form: {} });
    const result = await client.callTool({ name: "signin", arguments: { prompt: "sign me in" } });
    expect(asked).toEqual([]);
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain("pending");
    await client.close();
  });
});

describe("plain tools an agent exposes (mcpServerTools)", () => {
  it("lists them verbatim with their schema, ignores unknown names, and runs them without a run", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "crm",
      "signin",
      "delegate",
      "docs",
      "confirm",
      // test/fixtures/big-output-agents.ts (the tool-output tests)
      "reader",
      "reader-tight",
      // The fixture's agent on a 2026-07-28 MCP server (test/fixtures/modern-mcp.ts).
      "crm2026",
      // Its agents whose 2026-07-28 server asks for input and runs tasks (modern-mcp.ts, task-mcp.ts).
      "contact2026",
      "jobs2026",
      "big",
      "get_run",
      "echo",
    ]);
    const echo = tools.find((t) => t.name === "echo")!;
    expect(echo.inputSchema).toMatchObject({ type: "object", required: ["text"] });
    const result = await client.callTool({ name: "echo", arguments: { text: "héllo 👋" } });
    expect(result).toMatchObject({
      isError: false,
      content: [{ type: "text", text: "echo: héllo 👋" }],
    });
    const bad = await client.callTool({ name: "echo", arguments: { text: 5 } });
    expect(bad.isError).toBe(true);
    await client.close();
  });

  it("refuses to expose a tool with approval rules (config error naming it)", async () => {
    const gated = requireApproval(
      defineTool<{ id: string }>({
        name: "delete_all",
        description: "Deletes everything.",
        inputSchema: z.object({ id: z.string() }),
        run: () => "deleted",
      }),
      { prompt: "Delete everything?" },
    );
    const agent = defineAgent({
      name: "danger",
      description: "d",
      systemPrompt: "s",
      tools: [gated],
      mcpServerTools: ["delete_all"],
    });
    await expect(plainTools([agent], env, new Set())).rejects.toThrow(ConfigError);
    await expect(plainTools([agent], env, new Set())).rejects.toThrow(/"delete_all".*approval/);
    expect(() => defineAgent({ ...agent, name: "bad", mcpServerTools: "echo" as never })).toThrow(
      /mcpServerTools must be an array/,
    );
  });
});
