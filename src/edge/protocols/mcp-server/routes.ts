/**
 * POST/GET/DELETE /mcp: our agents as an MCP server over streamable HTTP (Bearer API token;
 * `x-toolnexus-user` names the caller). Protocol revision 2026-07-28 is stateless: a message
 * of it without a session is answered here (./modern). Otherwise the worker only routes: a
 * request without a session must be `initialize` and gets a new session id; every request goes
 * to that session's object (which answers 2025-11-25, or 2026-07-28 after such an initialize).
 * A POST body is read here, up to 1 MiB (`413 body_too_large` beyond, before any object is
 * touched), so a session object never buffers an unbounded body.
 */
import { Hono } from "hono";
import { bearerAuth } from "../../http/auth";
import { readBoundedBytes } from "../../http/body";
import type { EdgeEnv } from "../../settings";
import type { AgentDefinition } from "../../agent";
import type { ApproverGroupsInit } from "../../approvals/groups";
import { publicBase } from "../../approvals/links";
import {
  isModernMessage,
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

export function mcpRoutes(
  agents: AgentDefinition[],
  approverGroups: ApproverGroupsInit | undefined,
) {
  return new Hono<{ Bindings: EdgeEnv }>().all("/mcp", bearerAuth(), async (c) => {
    const given = c.req.header("mcp-session-id");
    if (given !== undefined && !isSessionId(given)) {
      return rpcError(404, -32001, "unknown MCP session: initialize a new one");
    }
    if (given === undefined && c.req.method !== "POST") {
      return rpcError(400, -32000, "no mcp-session-id: initialize a session with POST first");
    }
    const body = c.req.method === "POST" ? await readBoundedBytes(c, MAX_MCP_BODY_BYTES) : null;
    const message = given === undefined && body ? parsedJson(body) : undefined;
    if (isModernMessage(message, c.req.raw.headers)) {
      const { answerModern } = await import("./modern/entry");
      return answerModern(
        { env: c.env, agents, approverGroups, base: publicBase(c) },
        { message, headers: c.req.raw.headers, signal: c.req.raw.signal },
      );
    }
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

/** The body as JSON, or undefined when it is not (the session's transport answers that). */
function parsedJson(body: Uint8Array | ArrayBuffer): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}
