import type { MiddlewareHandler } from "hono";
import { readConfig, type EdgeEnv } from "./config";
import { ApiError } from "./http-errors";
import { timingSafeEqual } from "./webhooks";

/** `Authorization: Bearer <API_TOKEN>` for the run API, compared in constant time. */
export function bearerAuth(): MiddlewareHandler<{ Bindings: EdgeEnv }> {
  return async (c, next) => {
    const { apiToken } = readConfig(c.env);
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    const token = match?.[1];
    if (!token || !(await sameSecret(token, apiToken))) {
      throw new ApiError(401, "unauthorized", "missing or invalid bearer token", undefined, {
        "www-authenticate": 'Bearer realm="toolnexus"',
      });
    }
    await next();
  };
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
