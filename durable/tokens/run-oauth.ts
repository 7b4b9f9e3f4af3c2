/**
 * What the driver gives `createToolkit` for a run whose agent has an `oauth` MCP server:
 * the durable token store, the subject (the run's `requestedBy` when given, else its
 * thread), a `state` signed to name thread, run and request (so `GET /oauth/callback` knows
 * where to record the answer), and the MCP config with the edge's callback as the default
 * `redirectUrl` (`PUBLIC_URL`, else the origin the run was started on, + `/oauth/callback`).
 */
import type { OAuthStateMaker } from "../../src/core/mcp/oauth/session";
import type { TokenStore } from "../../src/core/mcp/oauth/store";
import { CALLBACK_PATH, usesOAuth, withRedirectUrl } from "../../src/edge/oauth/settings";
import { createOAuthState } from "../../src/edge/oauth/state-token";
import type { RunRow } from "../storage/run-store";
import { durableTokenStore } from "./store";
import { settings } from "../../src/edge/settings";

export interface RunOAuth {
  mcp: unknown;
  tokenStore?: TokenStore;
  subject?: string;
  oauthState?: OAuthStateMaker;
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
  return {
    mcp: withRedirectUrl(mcp, `${run.publicUrl.replace(/\/+$/, "")}${CALLBACK_PATH}`),
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
  };
}
