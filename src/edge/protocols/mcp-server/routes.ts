/**
 * POST/GET/DELETE /mcp: our agents as an MCP server over streamable HTTP (Bearer API token;
 * `x-toolnexus-user` names the caller). The worker only routes: a request without a session
 * must be `initialize` and gets a new session id; every request goes to that session's object.
 * A POST body is read here, up to 1 MiB (`413 body_too_large` beyond, before any object is
 * touched), so a session object never buffers an unbounded body.
 */
import { Hono } from "hono";
import { bearerAuth } from "../../http/auth";
import { readBoundedBytes } from "../../http/body";
import type { EdgeEnv } from "../../settings";
import { publicBase } from "../../approvals/links";
import {
  isSessionId,
  mcpSessionNamespace,
  NEW_SESSION_HEADER,
  newSessionId,
  SESSION_ID_HEADER,
} from "./sessions";

/** A JSON-RPC error at the HTTP level, as the SDK's transport shapes its own. */
const rpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });

/** The largest JSON-RPC body /mcp reads, as for /a2a. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

export function mcpRoutes() {
  return new Hono<{ Bindings: EdgeEnv }>().all("/mcp", bearerAuth(), async (c) => {
    const given = c.req.header("mcp-session-id");
    if (given !== undefined && !isSessionId(given)) {
      return rpcError(404, -32001, "unknown MCP session: initialize a new one");
    }
    if (given === undefined && c.req.method !== "POST") {
      return rpcError(400, -32000, "no mcp-session-id: initialize a session with POST first");
    }
    const body = c.req.method === "POST" ? await readBoundedBytes(c, MAX_MCP_BODY_BYTES) : null;
    const sessionId = given ?? newSessionId();
    const namespace = mcpSessionNamespace(c.env);
    const headers = new Headers(c.req.raw.headers);
    headers.set(SESSION_ID_HEADER, sessionId);
    headers.set(NEW_SESSION_HEADER, given === undefined ? "1" : "0");
    headers.set("x-toolnexus-base", publicBase(c));
    const stub = namespace.get(namespace.idFromName(sessionId));
    return stub.fetch(
      new Request(c.req.url, {
        method: c.req.method,
        headers,
        ...(body ? { body } : {}),
        signal: c.req.raw.signal,
      }),
    );
  });
}
