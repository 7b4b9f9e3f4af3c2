/**
 * What the driver gives `createToolkit` for a run whose agent has an `oauth` MCP server:
 * the durable token store, the subject (the run's `requestedBy` when given, else its
 * thread), a `state` signed to name thread, run and request (so `GET /oauth/callback` knows
 * where to record the answer), the sign-in link the request shows (src/edge/oauth/sign-in-link.ts),
 * and the MCP config with the edge's callback as the default `redirectUrl`: `PUBLIC_URL` +
 * `/oauth/callback`. Without `PUBLIC_URL` only a run started on a loopback origin (local
 * development) may sign in: a request's Host header must never choose where an authorization
 * code is sent (issue 37); anywhere else that is a `ConfigError` naming PUBLIC_URL.
 */
import type { OAuthSignInLink, OAuthStateMaker } from "../../src/core/mcp/oauth/session";
import type { TokenStore } from "../../src/core/mcp/oauth/store";
import { CALLBACK_PATH, usesOAuth, withRedirectUrl } from "../../src/edge/oauth/settings";
import { createOAuthState } from "../../src/edge/oauth/state-token";
import type { RunRow } from "../storage/run-store";
import { durableTokenStore } from "./store";
import { ConfigError, readConfig, settings } from "../../src/edge/settings";
import { signInLink } from "../../src/edge/oauth/sign-in-link";
import { isLoopback } from "../../src/edge/inbox/session";

export interface RunOAuth {
  mcp: unknown;
  tokenStore?: TokenStore;
  subject?: string;
  oauthState?: OAuthStateMaker;
  oauthSignInLink?: OAuthSignInLink;
}

/** The subject whose tokens a run uses. */
export function subjectOf(run: Pick<RunRow, "requestedBy" | "threadId">): string {
  return run.requestedBy ? run.requestedBy : `thread:${run.threadId}`;
}

/** The config unchanged when no server uses `oauth`; else with the binding and key (or a ConfigError). */
export function runOAuth(env: object, run: RunRow, mcp: unknown): RunOAuth {
  if (!usesOAuth(mcp)) {
    return { mcp };
  }
  const { tokens, key } = settings(env).oauth;
  const subject = subjectOf(run);
  const base = signInBase(env, run);
  return {
    mcp: withRedirectUrl(mcp, `${base}${CALLBACK_PATH}`),
    tokenStore: durableTokenStore(tokens),
    subject,
    oauthState: ({ server, requestId, runId }) =>
      createOAuthState(key, {
        threadId: run.threadId,
        runId: runId ?? run.runId,
        requestId,
        server,
        subject,
      }),
    oauthSignInLink: ({ authorizationUrl }) => signInLink(key, { base, authorizationUrl }),
  };
}

/** Where sign-ins come back to: PUBLIC_URL; without it, only a loopback origin (see above). */
function signInBase(env: object, run: RunRow): string {
  const configured = readConfig(env as never).publicUrl;
  if (configured) {
    return configured.replace(/\/+$/, "");
  }
  const started = new URL(run.publicUrl);
  if (isLoopback(started.hostname)) {
    return started.origin;
  }
  throw new ConfigError(
    `PUBLIC_URL is not set (an agent uses MCP oauth): set it to this worker's public origin, such as https://agents.example.com. A sign-in's redirect_uri is PUBLIC_URL + ${CALLBACK_PATH}; without it the run's request Host (${started.host}) would choose where the authorization code goes`,
  );
}
