/**
 * Authenticates an incoming Bot Framework activity as Teams does: the `Authorization: Bearer`
 * JWT is signed by a key of the Bot Framework's OpenID metadata (`TEAMS_OPENID_URL` →
 * `jwks_uri`, fetched once per isolate; jose caches and refreshes the keys), issued by
 * `https://api.botframework.com`, for our app id, unexpired, and its `serviceurl` claim (when
 * present) is the activity's. Anything else is refused before the body is looked at further.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from "jose";
import type { TeamsSettings } from "../settings/teams";

export const BOT_FRAMEWORK_ISSUER = "https://api.botframework.com";

const keySets = new Map<string, Promise<JWTVerifyGetKey>>();

function keysOf(openIdUrl: string): Promise<JWTVerifyGetKey> {
  let keys = keySets.get(openIdUrl);
  if (!keys) {
    keys = (async () => {
      const response = await fetch(openIdUrl, { headers: { accept: "application/json" } });
      const metadata = (await response.json().catch(() => undefined)) as
        | { jwks_uri?: unknown }
        | undefined;
      if (!response.ok || typeof metadata?.jwks_uri !== "string") {
        throw new Error(`Bot Framework OpenID metadata at ${openIdUrl} has no jwks_uri`);
      }
      return createRemoteJWKSet(new URL(metadata.jwks_uri));
    })();
    keySets.set(openIdUrl, keys);
    keys.catch(() => keySets.delete(openIdUrl)); // never cache a failure
  }
  return keys;
}

export class TeamsAuthError extends Error {
  override readonly name = "TeamsAuthError";
}

/** Throws {@link TeamsAuthError} unless the request carries a valid Bot Framework token. */
export async function verifyBotToken(
  settings: TeamsSettings,
  authorization: string | null,
  activityServiceUrl: unknown,
): Promise<void> {
  const token = /^Bearer (\S+)$/i.exec(authorization ?? "")?.[1];
  if (!token) {
    throw new TeamsAuthError("missing Bearer token");
  }
  let keys: JWTVerifyGetKey;
  try {
    keys = await keysOf(settings.openIdUrl);
  } catch (error) {
    throw new TeamsAuthError(error instanceof Error ? error.message : String(error));
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: BOT_FRAMEWORK_ISSUER,
      audience: settings.appId,
      algorithms: ["RS256"],
      clockTolerance: 300,
    }));
  } catch (error) {
    throw new TeamsAuthError(`token rejected: ${error instanceof Error ? error.message : error}`);
  }
  // The Bot Framework's claim is spelled `serviceurl` (its SDKs' ServiceUrlClaim); either counts.
  const claimed = payload.serviceurl ?? payload.serviceUrl;
  if (claimed !== undefined && claimed !== activityServiceUrl) {
    throw new TeamsAuthError("token's serviceurl is not the activity's");
  }
}
