/**
 * One Durable Object per MCP session (binding `MCP_SESSIONS`, named by the session id): it
 * holds the session's MCP server and its web-standard streamable HTTP transport, so an
 * elicitation reply (a later POST of the same session) reaches the call that asked. Thin:
 * the server is src/edge/protocols/mcp-server.
 *
 * After eviction: the session (the MCP server, its transport, any elicitation it waits on)
 * lives in memory only. An object that wakes up without it answers every request but an
 * `initialize` with 404 and JSON-RPC error -32001 "session not found", which the MCP
 * specification tells a client to answer by initializing a new session. Nothing durable is
 * lost: the runs live in their threads, so a call cut off this way is read with `get_run`
 * (its run id is in the progress messages and in any pending result), and a request it had
 * elicited is still open for the group, the inbox or the approval link.
 */
import { DurableObject } from "cloudflare:workers";
import type { EdgeEnv } from "../../src/edge/settings";
import type { WorkerOptions } from "../../src/edge/create-worker";
import {
  MODERN_PROTOCOL_VERSION,
  NEW_SESSION_HEADER,
  SESSION_ID_HEADER,
} from "../../src/edge/protocols/mcp-server/sessions";
import { type OpenSession, openSession } from "./open-session";

export type McpSessionObjectClass<Env = unknown> = new (
  ctx: DurableObjectState,
  env: Env,
) => DurableObject<Env>;

export function createMcpSessionClass(options: WorkerOptions): McpSessionObjectClass<EdgeEnv> {
  return class McpSessionObject extends DurableObject<EdgeEnv> {
    /** The session, once `initialize` opened it (a promise: opening imports the SDK). */
    #transport: Promise<OpenSession> | undefined;

    async #answerModern(request: Request, message: unknown, declared: object | undefined) {
      const { answerModern } = await import("../../src/edge/protocols/mcp-server/modern/entry");
      return answerModern(
        {
          env: this.env,
          agents: options.agents,
          approverGroups: options.approverGroups,
          base: request.headers.get("x-toolnexus-base") ?? new URL(request.url).origin,
        },
        { message, headers: request.headers, signal: request.signal },
        declared as Record<string, unknown> | undefined,
      );
    }

    override async fetch(request: Request): Promise<Response> {
      const sessionId = request.headers.get(SESSION_ID_HEADER) ?? "";
      if (!this.#transport) {
        if (!(await isInitialize(request.clone()))) {
          if (request.headers.get(NEW_SESSION_HEADER) === "1") {
            return Response.json(
              {
                jsonrpc: "2.0",
                id: null,
                error: { code: -32600, message: "a session starts with initialize" },
              },
              { status: 400 },
            );
          }
          return Response.json(
            {
              jsonrpc: "2.0",
              id: null,
              error: {
                code: -32001,
                message:
                  "MCP session not found (it ended, or its object was evicted): initialize a new session",
              },
            },
            { status: 404 },
          );
        }
        const base = request.headers.get("x-toolnexus-base") ?? new URL(request.url).origin;
        const opening = openSession(sessionId, {
          env: this.env,
          agents: options.agents,
          approverGroups: options.approverGroups,
          base,
        });
        this.#transport = opening;
        // A session that failed to open is not kept: the next initialize tries again.
        opening.catch(() => {
          if (this.#transport === opening) {
            this.#transport = undefined;
          }
        });
      }
      const { transport, server } = await this.#transport;
      if (server.protocolVersion === MODERN_PROTOCOL_VERSION && request.method === "POST") {
        // A host that initialized at 2026-07-28: its requests are that revision's, which keeps
        // no session state, so they are answered as a session-less one would be.
        const message = await request
          .clone()
          .json()
          .catch(() => undefined);
        if (!isInitializeMessage(message)) {
          return this.#answerModern(request, message, server.getClientCapabilities());
        }
      }
      return transport.handleRequest(request);
    }
  };
}

/** Is this request an `initialize` (the only one a session may start with)? */
async function isInitialize(request: Request): Promise<boolean> {
  if (request.method !== "POST") {
    return false;
  }
  try {
    return isInitializeMessage(await request.json());
  } catch {
    return false;
  }
}

function isInitializeMessage(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) =>
      typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize",
  );
}
