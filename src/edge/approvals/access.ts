/**
 * Cloudflare Access in front of the approver pages (docs/architecture.md §6 "Identity"): Access puts
 * a signed JWT in `Cf-Access-Jwt-Assertion`; we verify it with `jose` against the team's
 * keys (`<ACCESS_TEAM_DOMAIN>/cdn-cgi/access/certs`, cached by jose), the issuer and one
 * of `ACCESS_AUD`, and take the `email` claim (else `common_name`, for service tokens) as
 * the identity. Both variables or neither; neither ⇒ Access is not used.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from "jose";
import type { AccessSettings } from "../settings/access";

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
 * @example const who = await accessIdentity(settings(env).access, request.headers)
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
