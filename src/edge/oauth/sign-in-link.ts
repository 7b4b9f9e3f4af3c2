/**
 * The sign-in link an MCP sign-in request shows its requester (issue 37: login CSRF). The
 * kernel's request does not carry the authorization server's URL but our own
 * `GET /oauth/start?to=…&sig=…`, signed with the state key (keys.ts) so only this edge makes
 * one. Opening it sets a cookie that binds that browser to the sign-in (an HMAC of its
 * `state`, path `/oauth`, 15 minutes) and redirects to the authorization server;
 * `GET /oauth/callback` accepts only a browser holding that cookie. So an authorization URL
 * seen elsewhere (its `state` included) cannot be completed by another person: they would
 * bind their own account to the requester's subject. The link itself is the requester's;
 * views for anyone else (the timeline, view links, other A2A/MCP callers) leave it out.
 */
import { fromBase64Url, toBase64Url } from "../approvals/base64url";
import { tokenKeys } from "./keys";

export const START_PATH = "/oauth/start";

/** How long a browser stays bound to a sign-in it opened. */
export const BINDING_MAX_AGE_SECONDS = 15 * 60;

const encoder = new TextEncoder();
// "\0" never occurs in a state payload (base64url): the purposes cannot be confused.
const LINK = "oauth-start\u0000";
const BINDING = "oauth-binding\u0000";

async function mac(secret: string, text: string): Promise<Uint8Array> {
  const { state } = await tokenKeys(secret);
  return new Uint8Array(await crypto.subtle.sign("HMAC", state, encoder.encode(text)));
}

/** `<base>/oauth/start?to=<authorization URL>&sig=<its MAC>`. */
export async function signInLink(
  secret: string,
  { base, authorizationUrl }: { base: string; authorizationUrl: string },
): Promise<string> {
  const sig = toBase64Url(await mac(secret, LINK + authorizationUrl));
  const query = new URLSearchParams({ to: authorizationUrl, sig });
  return `${base.replace(/\/+$/, "")}${START_PATH}?${query}`;
}

/** The authorization URL a link names, when this edge signed it; else undefined. */
export async function openSignInLink(
  secret: string,
  { to, sig }: { to: string | undefined; sig: string | undefined },
): Promise<URL | undefined> {
  const given = sig ? fromBase64Url(sig) : null;
  if (!to || !given || to.length > 8192) {
    return undefined;
  }
  const { state } = await tokenKeys(secret);
  if (!(await crypto.subtle.verify("HMAC", state, given, encoder.encode(LINK + to)))) {
    return undefined;
  }
  try {
    return new URL(to);
  } catch {
    return undefined;
  }
}

/** The cookie that binds a browser to the sign-in of `state`: its name and value. */
export async function bindingCookie(
  secret: string,
  state: string,
): Promise<{ name: string; value: string }> {
  const value = toBase64Url(await mac(secret, BINDING + state));
  return { name: `toolnexus_oauth_${value.slice(0, 12)}`, value };
}
