/**
 * CORS for browser callers of `/v1/chat/*` and `/v1/ag-ui/*`: `CORS_ORIGINS` lists exact
 * origins (space-separated). A listed origin gets the headers (and a preflight answer);
 * any other origin gets none, so the browser refuses it. Credentials (cookies, the Access
 * session) are allowed only where Access is configured: with the API token a browser has
 * no business sending cookies.
 */
import type { MiddlewareHandler } from "hono";
import { type EdgeEnv, settings } from "../settings";
import { USER_HEADER } from "./identity";

const ALLOWED_HEADERS = ["authorization", "content-type", USER_HEADER].join(", ");
/** The UI message stream's marker header is read by `ai`'s transport. */
const EXPOSED_HEADERS = "x-vercel-ai-ui-message-stream";

/** Answers preflights and decorates responses for listed origins; does nothing for the rest. */
export function protocolCors(): MiddlewareHandler<{ Bindings: EdgeEnv }> {
  return async (c, next) => {
    const origin = c.req.header("origin");
    const allowed = origin !== undefined && settings(c.env).corsOrigins.has(origin);
    const credentials = allowed && settings(c.env).access !== undefined;
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
