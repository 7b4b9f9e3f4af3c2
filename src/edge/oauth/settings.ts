/**
 * What an agent with an `oauth` MCP server needs at the edge: the `MCP_TOKENS` binding (one
 * `TokenObject` per subject) and the `MCP_TOKEN_KEY` secret. Required only when some agent
 * uses `oauth`; a missing one is a `ConfigError` (`500 config_error`) naming it and the fix.
 */
import { type McpServerConfig, normalizeMcpConfig, parseMcpConfig } from "../../core/mcp/config";
import { ConfigError } from "../config-error";
import { checkKeySecret } from "../secret-key";

export interface OAuthSettings {
  tokens: DurableObjectNamespace;
  key: string;
}

/** The path of the edge's callback; the default `redirectUrl` is the public URL plus this. */
export const CALLBACK_PATH = "/oauth/callback";

/** True when some server of this MCP config has an `oauth` block. */
export function usesOAuth(mcp: unknown): boolean {
  if (mcp === undefined) {
    return false;
  }
  return Object.values(parseMcpConfig(mcp)).some(
    (entry) => typeof entry === "object" && entry !== null && "oauth" in entry,
  );
}

export function anyAgentUsesOAuth(agents: readonly { mcp?: unknown }[]): boolean {
  return agents.some((agent) => usesOAuth(agent.mcp));
}

/** Reads and checks both; throws a `ConfigError` saying which is missing or weak. */
export function readOAuthSettings(env: object): OAuthSettings {
  const values = env as { MCP_TOKENS?: unknown; MCP_TOKEN_KEY?: unknown };
  const tokens = values.MCP_TOKENS as DurableObjectNamespace | undefined;
  if (!tokens || typeof tokens.idFromName !== "function") {
    throw new ConfigError(
      'MCP_TOKENS is not bound (an agent uses MCP oauth): add a Durable Object binding MCP_TOKENS (class_name = "TokenObject", exported by your worker) and a migration with new_sqlite_classes = ["TokenObject"] to wrangler.toml',
    );
  }
  const key = values.MCP_TOKEN_KEY;
  if (typeof key !== "string" || key === "") {
    throw new ConfigError(
      'MCP_TOKEN_KEY is not set (an agent uses MCP oauth): set it with `wrangler secret put MCP_TOKEN_KEY` to whsec_ and at least 24 random bytes in base64 (`echo "whsec_$(openssl rand -base64 32)"`)',
    );
  }
  const checked = checkKeySecret("MCP_TOKEN_KEY", key);
  if (!checked.ok) {
    throw new ConfigError(checked.reason);
  }
  return { tokens, key };
}

/**
 * The config with every `oauth` block that names no `redirectUrl` given `redirectUrl`
 * (the edge's callback). Other entries and keys are kept as written.
 */
export function withRedirectUrl(mcp: unknown, redirectUrl: string): unknown {
  const servers = parseMcpConfig(mcp);
  const filled = Object.fromEntries(
    Object.entries(servers).map(([name, entry]) => {
      const oauth = (entry as { oauth?: unknown } | null)?.oauth;
      if (typeof oauth !== "object" || oauth === null || "redirectUrl" in oauth) {
        return [name, entry];
      }
      return [name, { ...(entry as object), oauth: { ...oauth, redirectUrl } }];
    }),
  );
  return { mcpServers: filled };
}

/** Stands in for the callback while a definition is checked; the driver fills the real one per run. */
const CHECKING_REDIRECT_URL = "https://edge.invalid/oauth/callback";

/**
 * `normalizeMcpConfig` for an agent at the edge, where an `oauth` block may leave out
 * `redirectUrl` (the edge's own callback is the default).
 */
export function normalizeEdgeMcpConfig(mcp: unknown): McpServerConfig[] {
  return normalizeMcpConfig(withRedirectUrl(mcp, CHECKING_REDIRECT_URL));
}
