/**
 * `GET /oauth/start` and `GET /oauth/callback`: an MCP sign-in at the edge.
 *
 * The sign-in request shows its requester a link to `/oauth/start` (sign-in-link.ts), which
 * binds the browser with a cookie and redirects to the authorization server. The server sends
 * the browser back to `/oauth/callback`. Its `state` is ours (state-token.ts): a made-up or
 * altered one is `400` and nothing is written; a browser without the binding cookie is `403`
 * (someone else opened the authorization URL: issue 37); a callback with neither `code` nor
 * `error` is `400`. A valid one first redeems the code at the token endpoint and stores the
 * tokens (encrypted, in the subject's TokenObject), then records the answer through the
 * thread's ledger like any decision (channel `oauth`, decided by the subject whose tokens
 * these are), which resumes the run; the run only connects. Redeeming here, before anything
 * is recorded, is what makes a crash harmless: a code is good once, and a process that dies
 * mid-exchange fails this page (the person opens the link again: a new code), where a run
 * that died mid-exchange could never finish its sign-in (core/mcp/oauth/redeem.ts). A code
 * the token endpoint refuses is `400` (`502` when the endpoint fails), nothing recorded.
 * The code is never kept in the decision: its answer holds the callback URL with the code
 * replaced by its SHA-256. A second use is `409`; an OAuth `error` declines the request.
 * Every answer is a small page.
 */
import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type EdgeEnv, settings } from "../settings";
import type { DecisionInput, DecisionOutcome } from "../protocol";
import { threadStub } from "../http/threads";
import { ApiError } from "../http/errors";
import { statusOf } from "../http/status";
import { pageHeaders } from "../pages/layout";
import { renderMessagePage } from "../approvals/page";
import { getCookie, setCookie } from "hono/cookie";
import type { OAuthRecord } from "../../core/mcp/oauth/store";
import { toBase64Url } from "../approvals/base64url";
import { NO_STORE_NO_REFERRER } from "../http/headers";
import { CALLBACK_PATH } from "./settings";
import { BINDING_MAX_AGE_SECONDS, bindingCookie, openSignInLink, START_PATH } from "./sign-in-link";
import { verifyOAuthState, type OAuthStateClaims } from "./state-token";
import { errorMessage } from "../../core/errors";

/** The subject's `TokenObject` as this route uses it (durable/tokens/object.ts `TokenRpc`). */
interface TokenRecords {
  get(subject: string, server: string): Promise<OAuthRecord | undefined>;
  set(subject: string, server: string, record: OAuthRecord): Promise<void>;
}

type Ctx = Context<{ Bindings: EdgeEnv }>;

/** An OAuth error code is a short token (RFC 6749 §4.1.2.1); anything longer is cut. */
const MAX_ERROR_CHARS = 100;

const page = (
  c: Ctx,
  status: ContentfulStatusCode,
  { title, message }: { title: string; message: string },
) =>
  c.html(renderMessagePage(title, message, status < 300 ? "ok" : "error"), status, pageHeaders());

/**
 * `enabled` when some agent uses `oauth`; elsewhere the paths are unknown routes (404).
 * `fetch` reaches the token endpoint (the edge's outbound fetch; tests inject one).
 */
export function oauthRoutes(options: { enabled: boolean; fetch?: typeof fetch }) {
  const outbound = options.fetch ?? ((input, init) => fetch(input, init));
  const enabled = () => {
    if (!options.enabled) {
      throw new ApiError(404, "not_found", "no such route");
    }
  };
  return new Hono<{ Bindings: EdgeEnv }>()
    .get(START_PATH, async (c) => {
      enabled();
      const { key } = settings(c.env).oauth;
      const to = await openSignInLink(key, { to: c.req.query("to"), sig: c.req.query("sig") });
      const state = to?.searchParams.get("state") ?? "";
      if (!to || !(await verifyOAuthState(key, state))) {
        return page(c, 400, {
          title: "Invalid sign-in link",
          message: "This sign-in link is not valid: it was altered or not made by this service.",
        });
      }
      const binding = await bindingCookie(key, state);
      setCookie(c, binding.name, binding.value, {
        httpOnly: true,
        sameSite: "Lax", // sent on the authorization server's top-level redirect back
        secure: new URL(c.req.url).protocol === "https:",
        path: "/oauth",
        maxAge: BINDING_MAX_AGE_SECONDS,
      });
      for (const [name, value] of Object.entries(NO_STORE_NO_REFERRER)) {
        c.header(name, value);
      }
      return c.redirect(to.href, 302);
    })
    .get(CALLBACK_PATH, async (c) => {
      enabled();
      return callback(c, outbound);
    });
}

async function callback(c: Ctx, outbound: typeof fetch): Promise<Response> {
  const { key, tokens } = settings(c.env).oauth;
  const state = c.req.query("state") ?? "";
  const claims = state === "" ? undefined : await verifyOAuthState(key, state);
  if (!claims) {
    return page(c, 400, {
      title: "Invalid sign-in link",
      message:
        "This sign-in callback is not valid: its state is missing, was altered, or was not made by this service. Nothing was recorded.",
    });
  }
  const error = c.req.query("error");
  const code = c.req.query("code");
  if (error === undefined && !code) {
    return page(c, 400, {
      title: "Sign-in incomplete",
      message: `The callback from ${claims.server} carries neither a code nor an error. Nothing was recorded; open the sign-in link again.`,
    });
  }
  const binding = await bindingCookie(key, state);
  if (getCookie(c, binding.name) !== binding.value) {
    return page(c, 403, {
      title: "Sign-in not recorded",
      message: `This browser did not open this sign-in to ${claims.server}: only the person who asked for it can complete it, from the link they were given. Nothing was recorded.`,
    });
  }
  if (error !== undefined) {
    const reason = `authorization denied: ${error.slice(0, MAX_ERROR_CHARS)}`;
    const outcome = await decide(c, claims, { decision: "decline", reason });
    return outcome.ok && !outcome.duplicate
      ? page(c, 200, {
          title: "Sign-in declined",
          message: `Sign-in to ${claims.server} was not completed (${reason}). The request is declined; you can close this tab.`,
        })
      : refused(c, claims, outcome);
  }
  const notRedeemed = await redeemHere(c, { claims, tokens, outbound });
  if (notRedeemed) {
    return notRedeemed;
  }
  const outcome = await decide(c, claims, {
    decision: "approve",
    data: { callbackUrl: await withCodeHashed(c.req.url) },
  });
  return outcome.ok && !outcome.duplicate
    ? page(c, 200, {
        title: "Signed in",
        message: `signed in to ${claims.server}; you can close this tab`,
      })
    : refused(c, claims, outcome);
}

/**
 * Redeems the code and stores the tokens before the answer is recorded (see the top of this
 * file); the error page when the token endpoint did not redeem it. A sign-in begun without
 * what that needs (`PendingSignIn.exchange`: one begun before this version) keeps its
 * callback in the subject's encrypted record instead, and the run redeems the code as it
 * used to. A sign-in that is over (a repeat) has no pending record: nothing is done here.
 */
async function redeemHere(
  c: Ctx,
  {
    claims,
    tokens,
    outbound,
  }: { claims: OAuthStateClaims; tokens: DurableObjectNamespace; outbound: typeof fetch },
): Promise<Response | undefined> {
  const records = tokens.get(tokens.idFromName(claims.subject)) as unknown as TokenRecords;
  const record = await records.get(claims.subject, claims.server);
  // Loaded here, not at start-up: the MCP SDK's OAuth client stays out of every other request.
  const { redeemAtCallback, TokenEndpointError } = await import("../../core/mcp/oauth/redeem");
  let redemption: Awaited<ReturnType<typeof redeemAtCallback>>;
  try {
    redemption = await redeemAtCallback(record, {
      requestId: claims.requestId,
      callbackUrl: c.req.url,
      fetch: outbound,
    });
  } catch (error) {
    const upstream = error instanceof TokenEndpointError && error.oauthError !== "invalid_grant";
    return page(c, upstream ? 502 : 400, {
      title: "Sign-in incomplete",
      message: `Sign-in to ${claims.server} did not complete: ${errorMessage(error)}. Nothing was recorded; open the sign-in link again.`,
    });
  }
  if (redemption.kind === "redeemed") {
    await records.set(claims.subject, claims.server, redemption.record);
  } else if (redemption.kind === "run" && record?.pending?.requestId === claims.requestId) {
    await records.set(claims.subject, claims.server, {
      ...record,
      pending: { ...record.pending, callbackUrl: c.req.url },
    });
  }
  return undefined;
}

/** The callback URL as the decision records it: the code replaced by `sha256:<its hash>`. */
async function withCodeHashed(callbackUrl: string): Promise<string> {
  const url = new URL(callbackUrl);
  const code = url.searchParams.get("code");
  if (code) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(code));
    url.searchParams.set("code", `sha256:${toBase64Url(new Uint8Array(digest))}`);
  }
  return url.href;
}

function decide(
  c: Ctx,
  claims: OAuthStateClaims,
  choice: Pick<DecisionInput, "decision" | "data" | "reason">,
): Promise<DecisionOutcome> {
  return threadStub(c.env, claims.threadId).decide({
    runId: claims.runId,
    requestId: claims.requestId,
    ...choice,
    channel: "oauth",
    decidedBy: claims.subject,
  });
}

/** A repeat or a request that is over: the page says so, nothing changes. */
function refused(c: Ctx, claims: OAuthStateClaims, outcome: DecisionOutcome) {
  if (outcome.ok || REUSED.has(outcome.code)) {
    return page(c, 409, {
      title: "Already used",
      message: `This sign-in to ${claims.server} was already used (or the request is no longer waiting). Nothing more was recorded; you can close this tab.`,
    });
  }
  return page(c, statusOf(outcome.code), {
    title: "Sign-in not recorded",
    message: outcome.message,
  });
}

const REUSED = new Set(["already_decided", "conflicting_decision", "request_not_pending"]);
