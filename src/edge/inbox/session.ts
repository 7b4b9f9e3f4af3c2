/**
 * Who is looking at `/inbox`: a session cookie set by a per-approver sign-in link
 * (`POST /v1/approvers/links`). Tokens are signed with keys derived from WEBHOOK_SECRET,
 * one purpose each ("approver-link", "inbox-session", "csrf"), so none passes for another.
 */
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { readConfig, type EdgeEnv } from "../settings";
import { derivedKeys, type KeyPurpose } from "../approvals/keys";
import { mintToken, readToken } from "./tokens";

export const SESSION_COOKIE = "toolnexus_inbox";
export const LINK_TTL_SECONDS = 24 * 3600;
export const SESSION_TTL_SECONDS = 12 * 3600;
const CSRF_TTL_SECONDS = 4 * 3600;

type Ctx = Context<{ Bindings: EdgeEnv }>;

/** A sign-in link for `approver` (a member id or identity), valid for a day. */
export async function approverLink(
  c: Ctx,
  base: string,
  approver: string,
): Promise<{ url: string; expiresAt: string }> {
  const exp = Math.floor(Date.now() / 1000) + LINK_TTL_SECONDS;
  const token = await mintToken(await signingKey(c, "approver-link"), { sub: approver, exp });
  return {
    url: `${base}/inbox/signin/${token}`,
    expiresAt: new Date(exp * 1000).toISOString(),
  };
}

/** The approver a sign-in link names, or undefined when it is not valid (any more). */
export async function readApproverLink(c: Ctx, token: string): Promise<string | undefined> {
  const keys = await derivedKeys(readConfig(c.env).webhookSecrets, "approver-link");
  return (await readToken(keys, token))?.sub;
}

/** Sets the session cookie: HttpOnly, SameSite=Lax, Secure except on loopback (plain-http dev). */
export async function startSession(c: Ctx, approver: string): Promise<void> {
  const exp = Math.floor(Date.now() / 1000) + SESSION_TTL_SECONDS;
  const token = await mintToken(await signingKey(c, "inbox-session"), { sub: approver, exp });
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "Lax",
    secure: !isLoopback(new URL(c.req.url).hostname),
    path: "/inbox",
    maxAge: SESSION_TTL_SECONDS,
  });
}

/** The signed-in approver's identity from the session cookie, if any. */
export async function sessionIdentity(c: Ctx): Promise<string | undefined> {
  const cookie = getCookie(c, SESSION_COOKIE);
  if (!cookie) {
    return undefined;
  }
  const keys = await derivedKeys(readConfig(c.env).webhookSecrets, "inbox-session");
  return (await readToken(keys, cookie))?.sub;
}

/** A CSRF token bound to the signed-in identity, for every form of the page. */
export async function csrfToken(c: Ctx, identity: string): Promise<string> {
  const exp = Math.floor(Date.now() / 1000) + CSRF_TTL_SECONDS;
  return mintToken(await signingKey(c, "csrf"), { sub: identity, exp });
}

export async function checkCsrf(c: Ctx, identity: string, token: string): Promise<boolean> {
  const keys = await derivedKeys(readConfig(c.env).webhookSecrets, "csrf");
  return (await readToken(keys, token))?.sub === identity;
}

async function signingKey(c: Ctx, purpose: KeyPurpose): Promise<CryptoKey> {
  const [key] = await derivedKeys(readConfig(c.env).webhookSecrets, purpose);
  if (!key) {
    throw new Error("no webhook secret configured");
  }
  return key;
}

export function isLoopback(hostname: string): boolean {
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    /^127(\.\d{1,3}){3}$/.test(hostname) ||
    hostname === "[::1]"
  );
}
