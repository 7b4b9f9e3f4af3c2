// Issue 41 (bench/README.md §5): the v2 MCP packages in workerd under `wrangler dev`, where
// code compiled at run time (eval, new Function) is refused, and without nodejs_compat.
// /server: a v2 McpServer whose tool asks a question with input_required (2026-07-28).
// /client: the v2 Client against /server (server/discover), answering the question.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  createMcpHandler,
  McpServer,
  inputRequired,
  acceptedContent,
} from "@modelcontextprotocol/server";
import * as z from "zod";

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "proof", version: "1.0.0" });
  server.registerTool("greet", { inputSchema: z.object({}) }, async (_args: any, ctx: any) => {
    const name = acceptedContent(ctx.mcpReq.inputResponses, "name") as
      | { name?: string }
      | undefined;
    if (!name) {
      return inputRequired({
        inputRequests: {
          name: {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: "Your name?",
              requestedSchema: {
                type: "object",
                properties: { name: { type: "string" } },
                required: ["name"],
              },
            },
          },
        },
      });
    }
    return { content: [{ type: "text", text: `Hello, ${name.name}!` }] };
  });
  return server;
});

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/server") {
      return handler.fetch(request);
    }
    const started = Date.now();
    const client = new Client(
      { name: "proof-client", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
    );
    client.setRequestHandler("elicitation/create", () => ({
      action: "accept",
      content: { name: "Ann" },
    }));
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL("/server", url.origin)));
      const result = await client.callTool({ name: "greet", arguments: {} });
      return Response.json({ era: client.getProtocolEra(), result, ms: Date.now() - started });
    } catch (error) {
      return Response.json(
        { error: String(error), stack: (error as Error).stack },
        { status: 500 },
      );
    }
  },
};
