/**
 * POST/GET/DELETE /mcp: our agents as an MCP server over streamable HTTP (Bearer API token;
 * `x-toolnexus-user` names the caller). The worker only routes: a request without a session
 * must be `initialize` and gets a new session id; every request goes to that session's object.
 */
import { Hono } from "hono";
import { bearerAuth } from "../../auth";
import type { EdgeEnv } from "../../config";
import { publicBase } from "../../links";
import { isSessionId, mcpSessionNamespace, newSessionId, SESSION_ID_HEADER } from "./sessions";

/** A JSON-RPC error at the HTTP level, as the SDK's transport shapes its own. */
const rpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });

export function mcpRoutes() {
  return new Hono<{ Bindings: EdgeEnv }>().all("/mcp", bearerAuth(), async (c) => {
    const given = c.req.header("mcp-session-id");
    if (given !== undefined && !isSessionId(given)) {
      return rpcError(404, -32001, "unknown MCP session: initialize a new one");
    }
    if (given === undefined && c.req.method !== "POST") {
      return rpcError(400, -32000, "no mcp-session-id: initialize a session with POST first");
    }
    const sessionId = given ?? newSessionId();
    const namespace = mcpSessionNamespace(c.env);
    const headers = new Headers(c.req.raw.headers);
    headers.set(SESSION_ID_HEADER, sessionId);
    headers.set("x-toolnexus-base", publicBase(c));
    const stub = namespace.get(namespace.idFromName(sessionId));
    return stub.fetch(new Request(c.req.raw, { headers }));
  });
}
