/**
 * Cloudflare Access's variables (read by `settings(env).access`): `ACCESS_TEAM_DOMAIN` and
 * `ACCESS_AUD`, both or neither; neither means Access is not used. The JWT check itself is
 * src/edge/approvals/access.ts.
 */
import { ConfigError } from "../config-error";

export interface AccessEnv {
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
}

export interface AccessSettings {
  /** An origin, e.g. `https://team.cloudflareaccess.com`. */
  teamDomain: string;
  audiences: string[];
}

export function parseAccessSettings(env: AccessEnv): AccessSettings | undefined {
  const domain = env.ACCESS_TEAM_DOMAIN?.trim();
  const audiences = (env.ACCESS_AUD ?? "").split(/\s+/).filter(Boolean);
  if (!domain && audiences.length === 0) {
    return undefined;
  }
  if (!domain) {
    throw new ConfigError("ACCESS_TEAM_DOMAIN is not set (required with ACCESS_AUD)");
  }
  if (audiences.length === 0) {
    throw new ConfigError("ACCESS_AUD is not set (required with ACCESS_TEAM_DOMAIN)");
  }
  let origin: string;
  try {
    const url = new URL(domain);
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new Error("not http(s)");
    }
    origin = url.origin;
  } catch {
    throw new ConfigError(
      `ACCESS_TEAM_DOMAIN must be an origin like https://team.cloudflareaccess.com, got ${JSON.stringify(domain)}`,
    );
  }
  return { teamDomain: origin, audiences };
}
