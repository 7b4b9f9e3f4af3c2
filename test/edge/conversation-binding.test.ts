// Issue 37 item 6: an A2A contextId and an MCP threadId are the caller's conversation. Another
// identity (or an anonymous caller) sending ann's id is refused and never continues it nor
// sees its history; ann herself continues it.
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { API_TOKEN, BASE } from "../helpers/edge";
import { threadStub } from "../helpers/durable";

let seq = 0;
async function send(contextId: string | undefined, text: string, user?: string) {
  const response = await SELF.fetch(`${BASE}/a2a`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${API_TOKEN}`,
      "content-type": "application/json",
      ...(user ? { "x-toolnexus-user": user } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++seq,
      method: "message/send",
      params: {
        message: {
          kind: "message",
          role: "user",
          messageId: crypto.randomUUID(),
          parts: [{ kind: "text", text }],
          ...(contextId ? { contextId } : {}),
        },
      },
    }),
  });
  expect(response.status).toBe(200);
  return response.json<any>();
}

async function mcpClient(user?: string) {
  const client = new Client({ name: "binding", version: "1.0.0" }, { capabilities: {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      fetch: (input, init) => SELF.fetch(new Request(input as RequestInfo, init)),
      requestInit: {
        headers: {
          authorization: `Bearer ${API_TOKEN}`,
          ...(user ? { "x-toolnexus-user": user } : {}),
        },
      },
    }),
  );
  return client;
}

const textOf = (result: unknown) =>
  ((result as { content: Array<{ text?: string }> }).content ?? [])
    .map((c) => c.text ?? "")
    .join("\n");

describe("conversation ids are bound to the caller", () => {
  it("A2A: another identity sending ann's contextId is -32004 and adds nothing", async () => {
    const contextId = `ctx-${crypto.randomUUID()}`;
    const first = await send(contextId, "where is order 42?", "ann@example.com");
    expect(first.result.status.state).toBe("completed");
    expect(first.result.contextId).toBe(contextId);

    for (const user of ["mallory@example.com", undefined]) {
      const other = await send(contextId, "what did I ask before?", user);
      expect(other.result).toBeUndefined();
      expect(other.error.code).toBe(-32004);
      expect(other.error.message).toMatch(/another identity/);
    }
    expect(await threadStub(contextId).runs()).toHaveLength(1);

    // A context the server minted is bound the same way.
    const minted = await send(undefined, "where is order 42?", "ann@example.com");
    const stolen = await send(minted.result.contextId, "and again?", "mallory@example.com");
    expect(stolen.error.code).toBe(-32004);

    // Ann continues her own conversation (emails compare case-insensitively).
    const again = await send(contextId, "where is order 42?", "Ann@Example.com");
    expect(again.result.status.state).toBe("completed");
    expect(await threadStub(contextId).runs()).toHaveLength(2);
  });

  it("MCP: another identity passing ann's threadId gets an error result and adds nothing", async () => {
    const threadId = `mcp-${crypto.randomUUID()}`;
    const ann = await mcpClient("ann@example.com");
    const first = await ann.callTool({
      name: "support",
      arguments: { prompt: "where is order 42?", threadId },
    });
    expect(first.isError).toBeFalsy();
    for (const user of ["mallory@example.com", undefined]) {
      const other = await mcpClient(user);
      const refused = await other.callTool({
        name: "support",
        arguments: { prompt: "what did I ask before?", threadId },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/thread_forbidden/);
      await other.close();
    }
    expect(await threadStub(threadId).runs()).toHaveLength(1);
    const again = await ann.callTool({
      name: "support",
      arguments: { prompt: "where is order 42?", threadId },
    });
    expect(again.isError).toBeFalsy();
    await ann.close();
  });
});
