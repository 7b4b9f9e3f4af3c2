/**
 * The inbox's signed tokens: approver sign-in links, session cookies and CSRF tokens,
 * each `<base64url(json claims)>.<base64url(HMAC-SHA256)>` under its own derived key
 * (keys.ts: "approver-link", "inbox-session", "csrf"), so one can never pass for another.
 * The first key signs; every key verifies (WEBHOOK_SECRET rotation).
 */
import { timingSafeEqual } from "../notify/webhooks";
import { fromBase64Url, isBase64Url, toBase64Url } from "../approvals/base64url";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const MAX_TOKEN_LENGTH = 2048;

/** Who, until when (unix seconds). */
export interface TokenClaims {
  sub: string;
  exp: number;
}

export async function mintToken(key: CryptoKey, claims: TokenClaims): Promise<string> {
  const payload = toBase64Url(encoder.encode(JSON.stringify({ sub: claims.sub, exp: claims.exp })));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
  return `${payload}.${toBase64Url(mac)}`;
}

/** The claims of a valid, unexpired token; undefined for anything else (no reason is leaked). */
export async function readToken(
  keys: readonly CryptoKey[],
  token: string,
  now = Date.now(),
): Promise<TokenClaims | undefined> {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
    return undefined;
  }
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined || !isBase64Url(payload)) {
    return undefined;
  }
  const given = fromBase64Url(signature);
  if (!given) {
    return undefined;
  }
  let valid = false;
  for (const key of keys) {
    const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
    valid = timingSafeEqual(expected, given) || valid;
  }
  if (!valid) {
    return undefined;
  }
  const claims = parseClaims(payload);
  return claims && Math.floor(now / 1000) < claims.exp ? claims : undefined;
}

function parseClaims(payload: string): TokenClaims | undefined {
  const bytes = fromBase64Url(payload);
  if (!bytes) {
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    if (typeof value === "object" && value !== null) {
      const { sub, exp } = value as Record<string, unknown>;
      if (typeof sub === "string" && sub !== "" && Number.isSafeInteger(exp)) {
        return { sub, exp: exp as number };
      }
    }
  } catch {
    // not ours
  }
  return undefined;
}
