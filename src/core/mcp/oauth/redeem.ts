/**
 * Redeeming a sign-in's authorization code, by whoever holds the callback. A code is good
 * once, and redeeming it is a round trip whose answer (the tokens) exists nowhere else, so a
 * process that dies between the token endpoint's answer and the tokens' write loses the
 * sign-in: the code cannot be redeemed again. Where that can happen matters:
 *
 * - in the run (the kernel's `OAuthSession.finish`, the default), after the answer was
 *   recorded: the resumed run holds an answer it can no longer use, and the call fails;
 * - in the request that brings the browser back (`redeemAtCallback`, what the edge's
 *   `/oauth/callback` does) before the answer is recorded: a death there fails that page
 *   only, the sign-in is still waiting, and opening its link again brings a new code. The
 *   run then finds the tokens stored and the sign-in marked `redeemedAt`, and only connects.
 *
 * `begin` keeps what a redemption needs besides the code and the verifier (`exchange`: the
 * authorization server's metadata, the resource and the client identity) with the sign-in in
 * progress, so the callback needs neither the agent's config nor a discovery of its own.
 */
import { exchangeAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { errorMessage } from "../../errors";
import type { OAuthRecord, PendingSignIn, SignInExchange, StoredTokens } from "./store";

/** The token endpoint did not redeem the code; `oauthError` is its OAuth error code (`invalid_grant`: used, expired or not ours). */
export class TokenEndpointError extends Error {
  constructor(
    message: string,
    readonly oauthError?: string,
  ) {
    super(message);
    this.name = "TokenEndpointError";
  }
}

/** The code for `pending`, redeemed at its token endpoint; throws a `TokenEndpointError` (`token endpoint: <why>`). */
export async function exchangeCode(
  exchange: SignInExchange,
  {
    code,
    pending,
    fetch,
  }: { code: string; pending: PendingSignIn; fetch: typeof globalThis.fetch },
): Promise<StoredTokens> {
  try {
    const tokens = await exchangeAuthorization(exchange.issuer, {
      metadata: exchange.metadata,
      clientInformation: exchange.client,
      authorizationCode: code,
      codeVerifier: pending.codeVerifier,
      redirectUri: pending.redirectUrl,
      resource: exchange.resource,
      fetchFn: fetch,
    });
    return storedTokens(tokens, pending.scope);
  } catch (cause) {
    const code = (cause as { errorCode?: unknown } | null)?.errorCode;
    throw new TokenEndpointError(
      `token endpoint: ${errorMessage(cause)}`,
      typeof code === "string" ? code : undefined,
    );
  }
}

export type CallbackRedemption =
  /** Redeemed now: store this record (tokens, the sign-in marked `redeemedAt`), then record the answer. */
  | { kind: "redeemed"; record: OAuthRecord }
  /** Redeemed by an earlier callback of this sign-in (one that died before the answer was recorded). */
  | { kind: "already" }
  /** Not this record's to redeem here (no such sign-in in progress, or one begun without `exchange`): the run redeems it. */
  | { kind: "run" };

/**
 * Redeems the code the browser brought back to `callbackUrl` for sign-in `requestId`. Throws
 * an `Error` saying why when it could not (the sign-in stays as it was: its link can be
 * opened again); a code the token endpoint took is never tried twice.
 */
export async function redeemAtCallback(
  record: OAuthRecord | undefined,
  {
    requestId,
    callbackUrl,
    fetch,
  }: { requestId: string; callbackUrl: string; fetch: typeof globalThis.fetch },
): Promise<CallbackRedemption> {
  const pending = record?.pending;
  if (!record || !pending || pending.requestId !== requestId || !pending.exchange) {
    return { kind: "run" };
  }
  if (pending.redeemedAt !== undefined) {
    return { kind: "already" };
  }
  const callback = new URL(callbackUrl);
  if (callback.searchParams.get("state") !== pending.state) {
    throw new Error("the callback's state does not match this sign-in");
  }
  const code = callback.searchParams.get("code");
  if (!code) {
    throw new Error("the callback carries no code");
  }
  const tokens = await exchangeCode(pending.exchange, { code, pending, fetch });
  return {
    kind: "redeemed",
    record: { ...record, tokens, pending: { ...pending, redeemedAt: Date.now() } },
  };
}

export function storedTokens(tokens: OAuthTokens, askedScope: string | undefined): StoredTokens {
  const out: StoredTokens = { accessToken: tokens.access_token, tokenType: tokens.token_type };
  if (tokens.refresh_token !== undefined) {
    out.refreshToken = tokens.refresh_token;
  }
  if (tokens.expires_in !== undefined) {
    out.expiresAt = Date.now() + tokens.expires_in * 1000;
  }
  const scope = tokens.scope ?? askedScope;
  if (scope !== undefined) {
    out.scope = scope;
  }
  return out;
}
