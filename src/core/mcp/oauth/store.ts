/**
 * Where MCP OAuth state lives, per server and subject (the person whose tokens they
 * are): the tokens, the client identity the authorization server gave us (dynamic
 * registration), and a sign-in in progress (PKCE verifier and `state`, bound to the
 * request id). The sign-in in progress is kept here rather than in the run so that a
 * halted run's JSON carries no secret: a fresh process with the same store finishes
 * the exchange from the request id alone.
 *
 * The default store is in memory (one process). The edge keeps records in a Durable
 * Object per subject, encrypted (durable/mcp-tokens).
 */

import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
} from "@modelcontextprotocol/sdk/shared/auth.js";

export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  tokenType: string;
  /** Milliseconds since the epoch; absent when the server did not say. */
  expiresAt?: number;
  scope?: string;
}

export interface StoredClient {
  /** The authorization server the identity belongs to. */
  issuer: string;
  redirectUrl: string;
  clientId: string;
  clientSecret?: string;
}

/** What redeeming a code needs besides the code and the verifier (kept by `begin`; ./redeem.ts). */
export interface SignInExchange {
  issuer: string;
  metadata: AuthorizationServerMetadata;
  /** RFC 8707 `resource`. */
  resource: string;
  /** Who we are to the authorization server (a client secret, when there is one, included). */
  client: OAuthClientInformationMixed;
}

export interface PendingSignIn {
  /** The `Request.id` of the authorization request this sign-in answers. */
  requestId: string;
  state: string;
  codeVerifier: string;
  redirectUrl: string;
  scope?: string;
  /** Milliseconds since the epoch. */
  startedAt: number;
  /** What a host needs to redeem the code where the browser comes back (./redeem.ts). */
  exchange?: SignInExchange;
  /**
   * Set (milliseconds since the epoch) when the host redeemed the code and stored the tokens
   * in this record already (./redeem.ts): finishing the sign-in only closes it.
   */
  redeemedAt?: number;
  /**
   * The URL the browser came back to, kept here by a host whose answer does not carry the
   * one-time code (the edge records only that a code came: issue 37); else the answer's.
   */
  callbackUrl?: string;
}

export interface OAuthRecord {
  /** The MCP server URL the record was made for; a record for another URL is ignored. */
  serverUrl: string;
  tokens?: StoredTokens;
  client?: StoredClient;
  pending?: PendingSignIn;
}

/** get / set / delete by server (its config name) and subject. */
export interface TokenStore {
  get(server: string, subject: string): Promise<OAuthRecord | undefined>;
  set(server: string, subject: string, record: OAuthRecord): Promise<void>;
  delete(server: string, subject: string): Promise<void>;
}

/** The subject when the toolkit is given none. */
export const DEFAULT_SUBJECT = "default";

/**
 * One process's store; records are copied in and out so callers cannot change them in place.
 * @example const toolkit = await createToolkit({ mcp, tokenStore: memoryTokenStore() });
 */
export function memoryTokenStore(): TokenStore {
  const records = new Map<string, string>();
  const key = (server: string, subject: string) => JSON.stringify([server, subject]);
  return {
    async get(server, subject) {
      const text = records.get(key(server, subject));
      return text === undefined ? undefined : (JSON.parse(text) as OAuthRecord);
    },
    async set(server, subject, record) {
      records.set(key(server, subject), JSON.stringify(record));
    },
    async delete(server, subject) {
      records.delete(key(server, subject));
    },
  };
}
