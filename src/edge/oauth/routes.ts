/**
 * `GET /oauth/callback`: where the authorization server sends the browser back after an MCP
 * sign-in. The `state` is ours (state-token.ts): a made-up or altered one is `400` and
 * nothing is written. A valid one records the answer through the thread's ledger like any
 * decision (channel `oauth`, decided by the subject whose tokens these are), which resumes
 * the run; the kernel then checks `state` again, exchanges the code and stores the tokens.
 * A second use is `409`; an OAuth `error` declines the request. Every answer is a small page.
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
import { CALLBACK_PATH } from "./settings";
import { verifyOAuthState, type OAuthStateClaims } from "./state-token";

type Ctx = Context<{ Bindings: EdgeEnv }>;

/** An OAuth error code is a short token (RFC 6749 §4.1.2.1); anything longer is cut. */
const MAX_ERROR_CHARS = 100;

const page = (
  c: Ctx,
  status: ContentfulStatusCode,
  { title, message }: { title: string; message: string },
) =>
  c.html(renderMessagePage(title, message, status < 300 ? "ok" : "error"), status, pageHeaders());

/** `enabled` when some agent uses `oauth`; elsewhere the path is an unknown route (404). */
export function oauthRoutes(options: { enabled: boolean }) {
  return new Hono<{ Bindings: EdgeEnv }>().get(CALLBACK_PATH, async (c) => {
    if (!options.enabled) {
      throw new ApiError(404, "not_found", "no such route");
    }
    const { key } = settings(c.env).oauth;
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
    const outcome = await decide(c, claims, {
      decision: "approve",
      data: { callbackUrl: c.req.url },
    });
    return outcome.ok && !outcome.duplicate
      ? page(c, 200, {
          title: "Signed in",
          message: `signed in to ${claims.server}; you can close this tab`,
        })
      : refused(c, claims, outcome);
  });
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
