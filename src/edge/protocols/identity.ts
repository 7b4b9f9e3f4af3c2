/**
 * Who calls the chat and AG-UI routes (docs/architecture.md §7 "Identity behind the API
 * token"). Two ways in: the Bearer API token, from the application's backend, with an
 * optional `x-toolnexus-user` naming the person it acts for (anonymous without it); or,
 * where `ACCESS_TEAM_DOMAIN` is set, a Cloudflare Access JWT from a browser app behind Access,
 * whose identity plays the same part (a browser's own `x-toolnexus-user` is then ignored:
 * only the backend holding the token may assert a name).
 */
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "../http/auth";
import { accessIdentity } from "../approvals/access";
import { readConfig, type EdgeEnv, settings } from "../settings";
import { ApiError } from "../http/errors";
import { MAX_IDENTITY_CHARS } from "../http/schemas";

export const USER_HEADER = "x-toolnexus-user";

/** The caller: `user` is null when anonymous; `via` says which door it came through. */
export interface Caller {
  user: string | null;
  via: "token" | "access";
}

export type ProtocolVars = { Bindings: EdgeEnv; Variables: { caller: Caller } };

/** Bearer token (plus `x-toolnexus-user`) or an Access identity; sets `c.var.caller`. */
export function protocolAuth(): MiddlewareHandler<ProtocolVars> {
  const bearer = bearerAuth<ProtocolVars>();
  return async (c, next) => {
    if (!c.req.header("authorization")) {
      const user = await accessIdentity(settings(c.env).access, c.req.raw.headers);
      if (user) {
        c.set("caller", { user: normalizeUser(user), via: "access" });
        return next();
      }
    }
    return bearer(c, async () => {
      c.set("caller", { user: headerUser(c.req.header(USER_HEADER)), via: "token" });
      await next();
    });
  };
}

function headerUser(value: string | undefined): string | null {
  if (value === undefined) {
    return null;
  }
  const user = value.trim();
  if (!user || user.length > MAX_IDENTITY_CHARS) {
    throw new ApiError(400, "invalid_user", {
      message: `${USER_HEADER} must be 1–${MAX_IDENTITY_CHARS} characters`,
      issues: [{ path: USER_HEADER, message: "empty or too long" }],
    });
  }
  return normalizeUser(user);
}

/** Emails compare case-insensitively (as approver groups do), so one person is one conversation owner. */
function normalizeUser(user: string): string {
  return user.includes("@") ? user.toLowerCase() : user;
}

/** Base of links we hand out (PUBLIC_URL, else the request's origin), for any protocol context. */
export function protocolBase(c: Context<ProtocolVars>): string {
  return readConfig(c.env).publicUrl ?? new URL(c.req.url).origin;
}
