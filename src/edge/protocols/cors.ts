/**
 * CORS for browser callers of `/v1/chat/*` and `/v1/ag-ui/*`: `CORS_ORIGINS` lists exact
 * origins (space-separated). A listed origin gets the headers (and a preflight answer);
 * any other origin gets none, so the browser refuses it. Credentials (cookies, the Access
 * session) are allowed only where Access is configured: with the API token a browser has
 * no business sending cookies.
 */
import type { MiddlewareHandler } from "hono";
import { readAccessSettings } from "../approvals/access";
import { ConfigError, type EdgeEnv } from "../settings";
import { USER_HEADER } from "./identity";

export interface CorsEnv {
  CORS_ORIGINS?: string;
}

const ALLOWED_HEADERS = ["authorization", "content-type", USER_HEADER].join(", ");
/** The UI message stream's marker header is read by `ai`'s transport. */
const EXPOSED_HEADERS = "x-vercel-ai-ui-message-stream";

export function readCorsOrigins(env: CorsEnv): Set<string> {
  const origins = new Set<string>();
  for (const entry of (env.CORS_ORIGINS ?? "").split(/\s+/).filter(Boolean)) {
    let origin: string;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = "null";
    }
    if (origin === "null" || origin !== entry.replace(/\/$/, "")) {
      throw new ConfigError(
        `CORS_ORIGINS must list exact origins such as https://app.example.com, got ${JSON.stringify(entry)}`,
      );
    }
    origins.add(origin);
  }
  return origins;
}

/** Answers preflights and decorates responses for listed origins; does nothing for the rest. */
export function protocolCors(): MiddlewareHandler<{ Bindings: EdgeEnv & CorsEnv }> {
  return async (c, next) => {
    const origin = c.req.header("origin");
    const allowed = origin !== undefined && readCorsOrigins(c.env).has(origin);
    const credentials = allowed && readAccessSettings(c.env) !== undefined;
    const decorate = (headers: Headers) => {
      headers.set("access-control-allow-origin", origin ?? "");
      if (!/\borigin\b/i.test(headers.get("vary") ?? "")) {
        headers.append("vary", "origin");
      }
      if (credentials) {
        headers.set("access-control-allow-credentials", "true");
      }
    };
    if (c.req.method === "OPTIONS" && c.req.header("access-control-request-method")) {
      const headers = new Headers({ vary: "origin" });
      if (allowed) {
        decorate(headers);
        headers.set("access-control-allow-methods", "GET, POST, OPTIONS");
        headers.set("access-control-allow-headers", ALLOWED_HEADERS);
        headers.set("access-control-max-age", "600");
      }
      return new Response(null, { status: 204, headers });
    }
    await next();
    if (allowed) {
      // A response passed through from the thread's object has immutable headers: copy it.
      c.res = new Response(c.res.body, c.res);
      decorate(c.res.headers);
      c.res.headers.set("access-control-expose-headers", EXPOSED_HEADERS);
    }
  };
}
