/**
 * Agents' `oauth` MCP servers at the edge: which agents use them, and the edge's own
 * callback as the default `redirectUrl`. Their variables (`MCP_TOKENS`, `MCP_TOKEN_KEY`)
 * are read by `settings(env).oauth` (src/edge/settings/oauth.ts).
 */
import { type McpServerConfig, normalizeMcpConfig, parseMcpConfig } from "../../core/mcp/config";

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
