/**
 * Cloudflare Access in front of the approver pages (docs/architecture.md §6 "Identity"): Access puts
 * a signed JWT in `Cf-Access-Jwt-Assertion`; we verify it with `jose` against the team's
 * keys (`<ACCESS_TEAM_DOMAIN>/cdn-cgi/access/certs`, cached by jose), the issuer and one
 * of `ACCESS_AUD`, and take the `email` claim (else `common_name`, for service tokens) as
 * the identity. Both variables or neither; neither ⇒ Access is not used.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from "jose";
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

export function readAccessSettings(env: AccessEnv): AccessSettings | undefined {
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

const keySets = new Map<string, JWTVerifyGetKey>();

function teamKeys(teamDomain: string): JWTVerifyGetKey {
  let keys = keySets.get(teamDomain);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(`${teamDomain}/cdn-cgi/access/certs`));
    keySets.set(teamDomain, keys);
  }
  return keys;
}

/**
 * The identity an Access JWT vouches for, or undefined when there is none or it does not
 * verify (expired, another audience or issuer, a forged signature).
 *
 * @example const who = await accessIdentity(readAccessSettings(env), request.headers)
 */
export async function accessIdentity(
  settings: AccessSettings | undefined,
  headers: Headers,
  keys?: JWTVerifyGetKey,
): Promise<string | undefined> {
  const token = headers.get("cf-access-jwt-assertion");
  if (!settings || !token) {
    return undefined;
  }
  try {
    const { payload } = await jwtVerify(token, keys ?? teamKeys(settings.teamDomain), {
      issuer: settings.teamDomain,
      audience: settings.audiences,
      algorithms: ["RS256", "ES256"],
    });
    const identity =
      typeof payload.email === "string" && payload.email
        ? payload.email
        : typeof payload.common_name === "string" && payload.common_name
          ? payload.common_name
          : undefined;
    return identity;
  } catch {
    return undefined;
  }
}
