/**
 * One Durable Object per MCP session (binding `MCP_SESSIONS`, named by the session id): it
 * holds the session's SDK server and its web-standard streamable HTTP transport, so an
 * elicitation reply (a later POST of the same session) reaches the call that asked. Thin:
 * the server is src/edge/protocols/mcp-server. The session lives in memory; if the object is
 * evicted, the client's next request gets "session not found" and it initializes again (the
 * runs themselves are durable in their threads).
 */
import { DurableObject } from "cloudflare:workers";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { EdgeEnv } from "../src/edge/config";
import type { WorkerOptions } from "../src/edge/create-worker";
import { SESSION_ID_HEADER } from "../src/edge/protocols/mcp-server/sessions";
import { sessionServer } from "../src/edge/protocols/mcp-server/server";

export type McpSessionObjectClass<Env = unknown> = new (
  ctx: DurableObjectState,
  env: Env,
) => DurableObject<Env>;

export function createMcpSessionClass(options: WorkerOptions) {
  return class McpSessionObject extends DurableObject<EdgeEnv> {
    #transport: WebStandardStreamableHTTPServerTransport | undefined;

    override async fetch(request: Request): Promise<Response> {
      const sessionId = request.headers.get(SESSION_ID_HEADER) ?? "";
      if (!this.#transport) {
        const base = request.headers.get("x-toolnexus-base") ?? new URL(request.url).origin;
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => sessionId,
        });
        const server = sessionServer({
          env: this.env,
          agents: options.agents,
          approverGroups: options.approverGroups,
          base,
        });
        await server.connect(transport);
        this.#transport = transport;
      }
      return this.#transport.handleRequest(request);
    }
  };
}
