/**
 * MCP sessions as the worker sees them: one `McpSessionObject` per session behind the
 * `MCP_SESSIONS` binding, so every POST of a session (an elicitation reply included) reaches
 * the server instance that holds its calls.
 */
import { ConfigError } from "../../settings";

/** The stateless protocol revision (./modern answers it; named here so routing imports nothing lazy). */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** The header the worker uses to tell the session object its own id. */
export const SESSION_ID_HEADER = "x-toolnexus-mcp-session";
/** "1" when the worker made the session id up (the client sent none): the request must be `initialize`. */
export const NEW_SESSION_HEADER = "x-toolnexus-mcp-new";

/** Fails like a missing variable (`500 config_error` naming it) when the binding is absent. */
export function mcpSessionNamespace(env: object): DurableObjectNamespace {
  const namespace = (env as { MCP_SESSIONS?: unknown }).MCP_SESSIONS;
  if (!namespace || typeof (namespace as DurableObjectNamespace).idFromName !== "function") {
    throw new ConfigError(
      'MCP_SESSIONS is not bound: add a Durable Object binding MCP_SESSIONS (class_name = "McpSessionObject", exported by your worker) and a migration with new_sqlite_classes = ["McpSessionObject"] to wrangler.toml',
    );
  }
  return namespace as DurableObjectNamespace;
}

export function newSessionId(): string {
  return `mcp_${crypto.randomUUID().replace(/-/g, "")}`;
}

export const isSessionId = (value: string): boolean => /^mcp_[a-f0-9]{32}$/.test(value);

/**
 * Is this message MCP 2026-07-28, which needs no session? `server/discover` (how a 2026 client
 * starts), or a request whose `_meta` envelope or `MCP-Protocol-Version` header names
 * 2026-07-28.
 */
export function isModernMessage(message: unknown, headers: Headers): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return false;
  }
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method === "initialize") {
    return false;
  }
  if (
    method === "server/discover" ||
    headers.get("mcp-protocol-version") === MODERN_PROTOCOL_VERSION
  ) {
    return true;
  }
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return (
    typeof meta === "object" &&
    meta !== null &&
    meta["io.modelcontextprotocol/protocolVersion"] === MODERN_PROTOCOL_VERSION
  );
}
