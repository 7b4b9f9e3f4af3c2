import type { MiddlewareHandler } from "hono";
import { readConfig, type EdgeEnv } from "./config";
import { ApiError } from "./http-errors";

/** `Authorization: Bearer <API_TOKEN>` for the run API, compared in constant time. */
export function bearerAuth(): MiddlewareHandler<{ Bindings: Env & EdgeEnv }> {
  return async (c, next) => {
    const { apiToken } = readConfig(c.env);
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match || !(await sameSecret(match[1]!, apiToken))) {
      throw new ApiError(401, "unauthorized", "missing or invalid bearer token", undefined, { "www-authenticate": 'Bearer realm="toolnexus"' });
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
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  let diff = 0;
  for (let i = 0; i < x.length; i += 1) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}
