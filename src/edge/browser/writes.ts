/**
 * What a browser may write (issue 37 item 4). A browser attaches cookies — the inbox
 * session, the Cloudflare Access session (which Access turns into `cf-access-jwt-assertion`)
 * — to a request any other site makes it send, so a route that changes state on such an
 * identity must tell its own pages from another site's:
 *
 * - `Origin`: a browser sends it on every POST (`null` from a `no-referrer` page such as ours,
 *   which `Sec-Fetch-Site: same-origin` vouches for). One that is neither this worker's origin
 *   (the request's, or `PUBLIC_URL`'s) nor listed in `CORS_ORIGINS` is `403
 *   forbidden_origin`, before anything is read or written. A request without `Origin` is not a
 *   browser's cross-site write, and passes. Nor is one with an `Authorization` header: it
 *   carries its own credential (the API token, which a backend proxy adds — passing the
 *   browser's Origin along), and a page can set that header cross-site only after a
 *   preflight, which src/edge/protocols/cors.ts grants to listed origins only.
 * - Content type: JSON routes take `application/json` only (`415`), which no cross-site form
 *   can send without a CORS preflight (`requireJsonType` in src/edge/http/body.ts).
 */
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../http/errors";
import { requireJsonType } from "../http/body";
import { readConfig, type EdgeEnv, settings } from "../settings";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether a request may write here, by its `Origin` (see the module comment). */
export function originMayWrite(request: Request, env: EdgeEnv): boolean {
  const origin = request.headers.get("origin");
  if (origin === null || request.headers.has("authorization")) {
    return true;
  }
  // Our pages are `Referrer-Policy: no-referrer`, under which a browser sends their own forms
  // with `Origin: null`; its Fetch Metadata still says where the request came from, and no page
  // can set a `Sec-` header. (A browser without Fetch Metadata posting from such a page is
  // refused like another site: the page says to open the link again.)
  if (request.headers.get("sec-fetch-site") === "same-origin") {
    return true;
  }
  if (origin === new URL(request.url).origin) {
    return true;
  }
  const publicUrl = readConfig(env).publicUrl;
  if (publicUrl !== undefined && origin === new URL(publicUrl).origin) {
    return true;
  }
  return settings(env).corsOrigins.has(origin);
}

/**
 * Refuses a state-changing request from another site's page: `refuse` answers it (an HTML
 * page for the server-rendered forms); the default is `403 forbidden_origin` in the §4 shape.
 */
export function sameSiteWrites<Vars extends { Bindings: EdgeEnv }>(
  refuse?: (c: Context<Vars>) => Response | Promise<Response>,
): MiddlewareHandler<Vars> {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method) || originMayWrite(c.req.raw, c.env)) {
      return next();
    }
    if (refuse) {
      return refuse(c);
    }
    throw new ApiError(403, "forbidden_origin", {
      message: `requests from ${c.req.header("origin")} may not change anything here: list the origin in CORS_ORIGINS`,
      issues: [{ path: "origin", message: "not this worker's origin nor in CORS_ORIGINS" }],
    });
  };
}

/** `415 unsupported_media_type` for a POST whose body is not declared JSON. */
export function jsonWrites<Vars extends { Bindings: EdgeEnv }>(): MiddlewareHandler<Vars> {
  return async (c, next) => {
    if (!SAFE_METHODS.has(c.req.method)) {
      requireJsonType(c.req.header("content-type"));
    }
    await next();
  };
}
