/**
 * Opens one MCP session: our server on the SDK's JSON-RPC layer
 * (src/edge/protocols/mcp-server) connected to the SDK's web-standard streamable HTTP
 * transport. Both are imported here, when a session starts, not when the worker starts: the
 * SDK's modules are a large part of the bundle and most invocations (runs, decisions,
 * queues) never evaluate them (issue 26, cold start; test/node/startup-modules.test.ts).
 */
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { SessionOptions } from "../../src/edge/protocols/mcp-server/server";
import type { SessionProtocolServer } from "../../src/edge/protocols/mcp-server/protocol-server";

export interface OpenSession {
  transport: WebStandardStreamableHTTPServerTransport;
  /** The session's server: the revision its `initialize` settled on, the client's capabilities. */
  server: SessionProtocolServer;
}

export async function openSession(
  sessionId: string,
  options: SessionOptions,
): Promise<OpenSession> {
  const [{ WebStandardStreamableHTTPServerTransport: Transport }, { sessionServer }] =
    await Promise.all([
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
      import("../../src/edge/protocols/mcp-server/server"),
    ]);
  const transport = new Transport({ sessionIdGenerator: () => sessionId });
  const server = sessionServer(options);
  await server.connect(transport);
  return { transport, server };
}
