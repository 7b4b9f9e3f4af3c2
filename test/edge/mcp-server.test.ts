// Our agents as an MCP server at /mcp (src/edge/protocols/mcp-server), driven by the MCP SDK's
// own Client over streamable HTTP (its fetch routed into the worker): tools/list, a call that
// elicits input and finishes, a call that returns pending (group decides) finished through
// get_run, and a client that cannot elicit getting the pending result. Auth and bad input too.
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { API_TOKEN, BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";

const selfFetch: typeof fetch = (input, init) =>
  SELF.fetch(new Request(input as RequestInfo, init));

async function connect(
  options: { user?: string; elicit?: (message: string) => Record<string, unknown> } = {},
) {
  const client = new Client(
    { name: "test-host", version: "1.0.0" },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  const asked: string[] = [];
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return {
        action: "accept",
        content: answer(request.params.message) as Record<string, string>,
      };
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    fetch: selfFetch,
    requestInit: {
      headers: {
        authorization: `Bearer ${API_TOKEN}`,
        ...(options.user ? { "x-toolnexus-user": options.user } : {}),
      },
    },
  });
  await client.connect(transport);
  return { client, asked };
}

const textOf = (result: any): string =>
  result.content.map((c: { text: string }) => c.text).join("\n");
const runIdOf = (text: string) => /Run (th_[a-f0-9]+\.run_[a-f0-9]{20})/.exec(text)?.[1] ?? "";

describe("MCP server", () => {
  it("needs the API token (401)", async () => {
    const response = await SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(response.status).toBe(401);
  });

  it("lists each agent as a tool taking a prompt, plus get_run", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "support",
      "coordinator",
      "lookup",
      "refunds",
      "get_run",
    ]);
    expect(tools[0]?.inputSchema.required).toEqual(["prompt"]);
    await client.close();
  });

  it("answers a call with the run's answer, with progress", async () => {
    const { client } = await connect();
    const progress: string[] = [];
    const result = await client.callTool(
      { name: "support", arguments: { prompt: "where is order 42" } },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? "") },
    );
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain("42");
    expect(progress).toContain("tool call lookup_order");
    await client.close();
  });

  it("elicits the input a run asks for and finishes", async () => {
    const { client, asked } = await connect({
      user: "host@example.com",
      elicit: () => ({ answer: "1 Main St" }),
    });
    const result = await client.callTool({
      name: "support",
      arguments: { prompt: "update my address" },
    });
    expect(asked).toEqual(["What is your new shipping address?"]);
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain("1 Main St");
    await client.close();
  });

  it("returns pending for a request the group decides, finished through get_run", async () => {
    const { client } = await connect({
      user: "ann@example.com",
      elicit: () => ({ answer: "unused" }),
    });
    const result = await client.callTool({
      name: "support",
      arguments: { prompt: "refund $2000 on order 42" },
    });
    expect(result.isError).toBe(false);
    const text = textOf(result);
    expect(text).toContain("pending");
    expect(text).toContain('group "finance"');
    expect(text).toMatch(/\/approve\/[^\s)]+/);
    const runId = runIdOf(text);
    const run = await getRun(runId);
    expect(run.requestedBy).toBe("ann@example.com");
    for (const member of ["bob@example.com", "carol@example.com"]) {
      await signedDecision({
        runId,
        requestId: run.pending!.id,
        decision: "approve",
        decidedBy: member,
      });
    }
    await waitForStatus(runId, ["done"]);
    const later = await client.callTool({ name: "get_run", arguments: { runId } });
    expect(later.isError).toBe(false);
    expect(textOf(later)).toContain("Refunded $2000");
    await client.close();
  });

  it("returns pending (not an error) when the client cannot elicit", async () => {
    const { client } = await connect();
    const result = await client.callTool({
      name: "support",
      arguments: { prompt: "update my address" },
    });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain("pending");
    const bad = await client
      .callTool({ name: "get_run", arguments: { runId: "nope" } })
      .catch((e) => e);
    expect(String(bad.message ?? bad)).toContain("no run nope");
    const unknown = await client
      .callTool({ name: "nobody", arguments: { prompt: "x" } })
      .catch((e) => e);
    expect(String(unknown.message ?? unknown)).toContain("no tool");
    await client.close();
  });
});
