/**
 * What an agent with an `oauth` MCP server needs at the edge (read by `settings(env).oauth`):
 * the `MCP_TOKENS` binding (one `TokenObject` per subject) and the `MCP_TOKEN_KEY` secret.
 * Required only when some agent uses `oauth`; a missing one is a `ConfigError`
 * (`500 config_error`) naming it and the fix.
 */
import { ConfigError } from "../config-error";
import { checkKeySecret } from "../secret-key";

export interface OAuthEnv {
  MCP_TOKENS?: unknown;
  MCP_TOKEN_KEY?: unknown;
}

export interface OAuthSettings {
  tokens: DurableObjectNamespace;
  key: string;
}

/** Reads and checks both; throws a `ConfigError` saying which is missing or weak. */
export function parseOAuthSettings(values: OAuthEnv): OAuthSettings {
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
