/**
 * The fetch an MCP transport uses, with authorization: it sends the current access
 * token, refreshes it once on a 401 (refresh tokens before asking a person), and turns a
 * 401 (or a 403 `insufficient_scope`) it cannot fix into an `AuthorizationRequired`
 * error carrying the server's challenge. The SDK's transports pass errors thrown by
 * their fetch through unchanged, so the caller (a tool call, the loader) can tell a
 * sign-in from any other failure.
 */
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";

export interface AuthChallenge {
  status: 401 | 403;
  /** RFC 9728 `resource_metadata` from `WWW-Authenticate`. */
  resourceMetadataUrl?: string;
  scope?: string;
  error?: string;
}

export class AuthorizationRequired extends Error {
  constructor(
    readonly server: string,
    readonly challenge: AuthChallenge,
  ) {
    super(
      challenge.status === 403
        ? `${server} needs more scope (${challenge.scope ?? "unspecified"})`
        : `${server} requires authorization (HTTP 401)`,
    );
    this.name = "AuthorizationRequired";
  }
}

/** The `AuthorizationRequired` in an error or its causes. */
export function authorizationRequiredIn(error: unknown): AuthorizationRequired | undefined {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof AuthorizationRequired) {
      return e;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What the fetch asks of the server's OAuth session (none for a server without `oauth`). */
export interface BearerSource {
  /** The access token to send, refreshed first when it is known to have expired. */
  accessToken(): Promise<string | undefined>;
  /** Tries the refresh token; true when there is a new access token. */
  refresh(): Promise<boolean>;
}

type Fetch = typeof fetch;

export function authorizingFetch(base: Fetch, server: string, bearer?: BearerSource): Fetch {
  return async (input, init) => {
    let token = await bearer?.accessToken();
    let response = await base(input, withBearer(init, token));
    if (response.status === 401 && token !== undefined && bearer && (await bearer.refresh())) {
      await response.body?.cancel();
      token = await bearer.accessToken();
      response = await base(input, withBearer(init, token));
    }
    const challenge = challengeOf(response);
    if (challenge) {
      await response.body?.cancel();
      throw new AuthorizationRequired(server, challenge);
    }
    return response;
  };
}

function challengeOf(response: Response): AuthChallenge | undefined {
  if (response.status !== 401 && response.status !== 403) {
    return undefined;
  }
  const params = extractWWWAuthenticateParams(response);
  if (response.status === 403 && params.error !== "insufficient_scope") {
    return undefined;
  }
  const challenge: AuthChallenge = { status: response.status };
  if (params.resourceMetadataUrl) {
    challenge.resourceMetadataUrl = params.resourceMetadataUrl.href;
  }
  if (params.scope) {
    challenge.scope = params.scope;
  }
  if (params.error) {
    challenge.error = params.error;
  }
  return challenge;
}

function withBearer(
  init: RequestInit | undefined,
  token: string | undefined,
): RequestInit | undefined {
  if (token === undefined) {
    return init;
  }
  const headers = new Headers(init?.headers);
  headers.set("authorization", `Bearer ${token}`);
  return { ...init, headers };
}
