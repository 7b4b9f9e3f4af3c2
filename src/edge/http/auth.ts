import type { MiddlewareHandler } from "hono";
import { bearerAuth as honoBearerAuth } from "hono/bearer-auth";
import { readConfig, type EdgeEnv } from "../settings";
import { errorBody } from "./errors";
import { timingSafeEqual } from "../notify/webhooks";

const CHALLENGE = 'Bearer realm="toolnexus"';

/** Every failure is the same JSON 401 (no hint whether the header or the token was wrong). */
const unauthorized = () =>
  new Response(JSON.stringify(errorBody("unauthorized", "missing or invalid bearer token")), {
    status: 401,
    headers: { "content-type": "application/json", "www-authenticate": CHALLENGE },
  });

/**
 * `Authorization: Bearer <API_TOKEN>` for the run API: Hono's `bearerAuth`, with the token
 * read from the environment per request and compared in constant time (SHA-256 digests, so
 * neither length nor content leaks through timing). A missing, malformed or wrong token is a
 * JSON `401 unauthorized` with `www-authenticate` — Hono's `HTTPException`, whose response
 * `onError` passes through unchanged.
 */
export function bearerAuth<
  Vars extends { Bindings: EdgeEnv } = { Bindings: EdgeEnv },
>(): MiddlewareHandler<Vars> {
  return honoBearerAuth<Vars>({
    verifyToken: (token, c) => sameSecret(token, readConfig(c.env).apiToken),
    noAuthenticationHeader: { message: unauthorized },
    invalidAuthenticationHeader: { message: unauthorized },
    invalidToken: { message: unauthorized },
  });
}

/** Compares digests, so neither length nor content leaks through timing. */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(given)),
    crypto.subtle.digest("SHA-256", encoder.encode(expected)),
  ]);
  return timingSafeEqual(new Uint8Array(a), new Uint8Array(b));
}
