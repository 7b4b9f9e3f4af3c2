/**
 * One MCP server's OAuth state for one subject: the access token the transport sends,
 * the refresh that is tried before a person is asked, and a sign-in as a person's step —
 * `begin` makes the `authorization` request (PKCE S256, `state`, `resource`, scope) and
 * remembers the verifier in the token store under the request id; `finish` takes the
 * answer (`{ callbackUrl }`), checks `state`, exchanges the code and stores the tokens.
 * Nothing secret leaves through the request: its URL holds only the PKCE challenge.
 */
import { refreshAuthorization, startAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import { newRequestId } from "../../answers";
import { errorMessage } from "../../errors";
import type { Answer, Request } from "../../types";
import type { AuthChallenge, BearerSource } from "./challenge";
import { clientIdentity } from "./client-identity";
import type { McpOAuthConfig } from "./config";
import { chooseScope, discover, type Discovery } from "./discover";
import { exchangeCode, storedTokens } from "./redeem";
import type { OAuthRecord, TokenStore } from "./store";

/** Makes the `state` of a sign-in; default 32 random bytes. The edge signs one naming run and request. */
export type OAuthStateMaker = (info: {
  server: string;
  requestId: string;
  runId?: string;
}) => string | Promise<string>;

/**
 * The link a sign-in request shows the person (`Request.url`): by default the authorization
 * URL. A host may hand out a link of its own that leads there (the edge binds the browser to
 * the sign-in first, so a leaked authorization URL cannot be completed by someone else).
 */
export type OAuthSignInLink = (info: {
  server: string;
  requestId: string;
  runId?: string;
  authorizationUrl: string;
}) => string | Promise<string>;

export interface OAuthSessionOptions {
  server: string;
  serverUrl: string;
  config: McpOAuthConfig;
  store: TokenStore;
  subject: string;
  fetch: typeof fetch;
  makeState?: OAuthStateMaker;
  signInLink?: OAuthSignInLink;
}

/** Refresh this long before the stated expiry, so a token does not lapse in flight. */
const EXPIRY_MARGIN_MS = 5_000;

export class OAuthSession implements BearerSource {
  #record: OAuthRecord | undefined;
  #loaded = false;
  #discovery: Discovery | undefined;
  #refreshing: Promise<boolean> | undefined;

  constructor(private readonly options: OAuthSessionOptions) {}

  get server(): string {
    return this.options.server;
  }

  /** The authorization server found so far (for `mcpStatus()`). */
  get authorizationServer(): string | undefined {
    return this.#discovery?.issuer;
  }

  async accessToken(): Promise<string | undefined> {
    const tokens = (await this.#load()).tokens;
    if (!tokens) {
      return undefined;
    }
    if (tokens.expiresAt !== undefined && tokens.expiresAt - EXPIRY_MARGIN_MS <= Date.now()) {
      return (await this.refresh()) ? (await this.#load()).tokens?.accessToken : undefined;
    }
    return tokens.accessToken;
  }

  refresh(): Promise<boolean> {
    this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #refresh(): Promise<boolean> {
    const record = await this.#load();
    const refreshToken = record.tokens?.refreshToken;
    if (!refreshToken) {
      return false;
    }
    try {
      const discovery = await this.#discover(undefined);
      const identity = await clientIdentity(this.options.config, discovery, {
        remembered: record.client,
        fetch: this.options.fetch,
      });
      const tokens = await refreshAuthorization(discovery.issuer, {
        metadata: discovery.metadata,
        clientInformation: identity.info,
        refreshToken,
        resource: discovery.resource,
        fetchFn: this.options.fetch,
      });
      await this.#save({ ...record, tokens: storedTokens(tokens, record.tokens?.scope) });
      return true;
    } catch {
      // A refresh token that no longer works is dropped: the next step is a person's.
      const { tokens: _dropped, ...rest } = record;
      await this.#save(rest);
      return false;
    }
  }

  /** The `authorization` request for a sign-in, its verifier kept in the store. */
  async begin(challenge: AuthChallenge | undefined, runId?: string): Promise<Request> {
    const { server, config } = this.options;
    const discovery = await this.#discover(challenge);
    const record = await this.#load();
    const identity = await clientIdentity(config, discovery, {
      remembered: record.client,
      fetch: this.options.fetch,
    });
    const requestId = newRequestId("auth");
    const state = await (this.options.makeState ?? randomState)({
      server,
      requestId,
      ...(runId === undefined ? {} : { runId }),
    });
    const scope = chooseScope({
      challenge: challenge?.scope,
      configured: config.scope,
      supported: discovery.scopesSupported,
      granted: challenge?.status === 403 ? record.tokens?.scope : undefined,
    });
    const { authorizationUrl, codeVerifier } = await startAuthorization(discovery.issuer, {
      metadata: discovery.metadata,
      clientInformation: identity.info,
      redirectUrl: config.redirectUrl,
      state,
      resource: discovery.resource,
      ...(scope === undefined ? {} : { scope }),
    });
    await this.#save({
      ...record,
      ...(identity.registered ? { client: identity.registered } : {}),
      pending: {
        requestId,
        state,
        codeVerifier,
        redirectUrl: config.redirectUrl,
        ...(scope === undefined ? {} : { scope }),
        startedAt: Date.now(),
        // So the host's callback can redeem the code itself (./redeem.ts).
        exchange: {
          issuer: discovery.issuer,
          metadata: discovery.metadata,
          resource: discovery.resource,
          client: identity.info,
        },
      },
    });
    const url = this.options.signInLink
      ? await this.options.signInLink({
          server,
          requestId,
          ...(runId === undefined ? {} : { runId }),
          authorizationUrl: authorizationUrl.href,
        })
      : authorizationUrl.href;
    return {
      id: requestId,
      kind: "authorization",
      prompt: `Sign in to ${server} (${new URL(discovery.issuer).host}) so the call can go on`,
      url,
      data: {
        server,
        authorizationServer: discovery.issuer,
        ...(scope === undefined ? {} : { scope }),
      },
    };
  }

  /** True when `requestId` is this session's sign-in in progress. */
  async owns(requestId: string): Promise<boolean> {
    return (await this.#load()).pending?.requestId === requestId;
  }

  /** Finishes the sign-in `answer` answers; throws an `Error` saying why it could not. */
  async finish(answer: Answer): Promise<void> {
    // Read again: the host may have kept the callback in the store since (see PendingSignIn).
    this.#loaded = false;
    const record = await this.#load();
    const pending = record.pending;
    if (!pending || pending.requestId !== answer.id) {
      throw new Error(`no sign-in to ${this.server} is in progress for request ${answer.id}`);
    }
    if (pending.redeemedAt !== undefined) {
      // The host redeemed the code where the browser came back and stored the tokens here.
      await this.#save(withoutPending(record));
      return;
    }
    const callback = pending.callbackUrl ? new URL(pending.callbackUrl) : callbackOf(answer);
    const error = callback.searchParams.get("error");
    if (error !== null) {
      await this.#save(withoutPending(record));
      throw new Error(`authorization denied: ${error}`);
    }
    if (callback.searchParams.get("state") !== pending.state) {
      // Not ours (or tampered with): the sign-in stays open for the right callback.
      throw new Error("the callback's state does not match this sign-in");
    }
    const code = callback.searchParams.get("code");
    if (!code) {
      throw new Error("the callback carries no code");
    }
    // A code is good once: whatever the token endpoint says, this sign-in is over.
    const rest = withoutPending(record);
    try {
      const discovery = await this.#discover(undefined);
      const identity = await clientIdentity(this.options.config, discovery, {
        remembered: record.client,
        fetch: this.options.fetch,
      });
      const exchange = { ...discovery, client: identity.info };
      const tokens = await exchangeCode(exchange, { code, pending, fetch: this.options.fetch });
      await this.#save({ ...rest, tokens });
    } catch (cause) {
      await this.#save(rest);
      const message = errorMessage(cause);
      throw new Error(
        message.startsWith("token endpoint:") ? message : `token endpoint: ${message}`,
      );
    }
  }

  async #discover(challenge: AuthChallenge | undefined): Promise<Discovery> {
    // A challenge may point at other metadata (step-up): discover again then.
    if (this.#discovery && !challenge?.resourceMetadataUrl) {
      return this.#discovery;
    }
    this.#discovery = await discover(this.options.serverUrl, challenge, this.options.fetch);
    return this.#discovery;
  }

  async #load(): Promise<OAuthRecord> {
    if (!this.#loaded) {
      const found = await this.options.store.get(this.options.server, this.options.subject);
      this.#record =
        found && found.serverUrl === this.options.serverUrl
          ? found
          : { serverUrl: this.options.serverUrl };
      this.#loaded = true;
    }
    return this.#record as OAuthRecord;
  }

  async #save(record: OAuthRecord): Promise<void> {
    this.#record = record;
    await this.options.store.set(this.options.server, this.options.subject, record);
  }
}

function withoutPending(record: OAuthRecord): OAuthRecord {
  const { pending: _done, ...rest } = record;
  return rest;
}

function callbackOf(answer: Answer): URL {
  const raw = (answer.data as { callbackUrl?: unknown } | undefined)?.callbackUrl;
  if (typeof raw !== "string") {
    throw new Error(
      "the answer to a sign-in must be { callbackUrl } (the URL the browser came back to)",
    );
  }
  try {
    return new URL(raw);
  } catch {
    throw new Error("the answer's callbackUrl is not a URL");
  }
}

function randomState(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}
