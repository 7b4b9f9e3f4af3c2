/**
 * MCP sessions as the worker sees them: one `McpSessionObject` per session behind the
 * `MCP_SESSIONS` binding, so every POST of a session (an elicitation reply included) reaches
 * the server instance that holds its calls.
 */
import { ConfigError } from "../../settings";

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
