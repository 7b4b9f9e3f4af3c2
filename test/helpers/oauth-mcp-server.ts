/**
 * An OAuth-protected MCP server on 127.0.0.1 for Node tests, built from the MCP SDK's
 * own server parts: its authorization, token and registration handlers over a small
 * in-memory `OAuthServerProvider`, its `requireBearerAuth` middleware in front of a
 * streamable HTTP MCP server. The "person" consents at once: `/authorize` redirects
 * straight back with a code, so a test follows the request's URL with `redirect:
 * "manual"` and hands the `Location` back as `callbackUrl`.
 *
 * Variants (discovery, registration, failures) are switches on `OAuthServerOptions`.
 */
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import type { Response } from "express";
import { authorizationHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/authorize.js";
import { tokenHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/token.js";
import { clientRegistrationHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/register.js";
import { metadataHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/metadata.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import {
  InvalidGrantError,
  InvalidTokenError,
  ServerError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type {
  OAuthClientInformationFull,
  OAuthMetadata,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export interface OAuthServerOptions {
  /** Where the protected resource metadata is served (default "path"). */
  prm?: "path" | "root" | "header-only";
  /** Where the authorization server metadata is (default "oauth" at the root issuer). */
  asMetadata?: "oauth" | "oauth-path" | "oidc-path-insert" | "oidc-path-append";
  /** Dynamic registration offered (default true). */
  registration?: boolean;
  /** Client ID Metadata Documents advertised (default false). */
  cimd?: boolean;
  /** Advertise PKCE S256 (default true). */
  s256?: boolean;
  /** Seconds an access token lives (default 3600). */
  tokenLifetime?: number;
  /** Token endpoint auth methods advertised (default the SDK's: post, none). */
  authMethods?: string[];
}

interface Grant {
  client: OAuthClientInformationFull;
  params: AuthorizationParams;
}

export interface OAuthTestServer {
  /** The MCP endpoint. */
  url: string;
  origin: string;
  /** Parameters `/authorize` was called with, in order. */
  authorizations: Array<AuthorizationParams & { clientId: string }>;
  /** Token requests: grant type and how the client authenticated. */
  tokenRequests: Array<{ grantType: string; authorization?: string; clientSecret?: string }>;
  registrations: OAuthClientInformationFull[];
  /** Authorization headers the MCP endpoint saw. */
  bearers: string[];
  /** Tools called on the MCP endpoint, by name, in order (what ran, however often it was asked). */
  toolCalls: string[];
  /**
   * The `io.toolnexus/idempotency-key` of every `tools/call` that carried one, in order. The
   * server dedupes on it as a real one would: a key it has answered is answered again from
   * memory, not run (so `toolCalls` counts runs, this counts sends).
   */
  idempotencyKeys: string[];
  /** Adds a client registered beforehand. */
  preRegister(client: OAuthClientInformationFull): void;
  /** Makes the token endpoint fail (500 server_error) while true. */
  failTokens: boolean;
  /** Expires every access token now (refresh tokens stay good). */
  expireAccessTokens(): void;
  /** Revokes every token, refresh tokens included. */
  revokeAll(): void;
  close(): Promise<void>;
}

export async function startOAuthMcpServer(
  options: OAuthServerOptions = {},
): Promise<OAuthTestServer> {
  const app = express();
  const http: HttpServer = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const tenant = options.asMetadata && options.asMetadata !== "oauth" ? "/tenant" : "";
  const issuer = `${origin}${tenant}`;
  const mcpUrl = `${origin}/mcp`;

  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, Grant>();
  const accessTokens = new Map<string, AuthInfo>();
  const refreshTokens = new Map<string, { clientId: string; scopes: string[] }>();
  /** What a `tools/call` with an idempotency key answered, by key (see `idempotencyKeys`). */
  const answeredByKey = new Map<string, { content: Array<{ type: "text"; text: string }> }>();
  const state: OAuthTestServer = {
    url: mcpUrl,
    origin,
    authorizations: [],
    tokenRequests: [],
    registrations: [],
    bearers: [],
    toolCalls: [],
    idempotencyKeys: [],
    failTokens: false,
    preRegister: (client) => clients.set(client.client_id, client),
    expireAccessTokens() {
      for (const info of accessTokens.values()) {
        info.expiresAt = Math.floor(Date.now() / 1000) - 10;
      }
    },
    revokeAll() {
      accessTokens.clear();
      refreshTokens.clear();
    },
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };

  let counter = 0;
  const issue = (clientId: string, scopes: string[]) => {
    if (state.failTokens) {
      throw new ServerError("token endpoint is down");
    }
    counter++;
    const access = `at-${counter}-${Math.random().toString(36).slice(2)}`;
    const refresh = `rt-${counter}-${Math.random().toString(36).slice(2)}`;
    const lifetime = options.tokenLifetime ?? 3600;
    accessTokens.set(access, {
      token: access,
      clientId,
      scopes,
      expiresAt: Math.floor(Date.now() / 1000) + lifetime,
    });
    refreshTokens.set(refresh, { clientId, scopes });
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: lifetime,
      refresh_token: refresh,
      scope: scopes.join(" "),
    };
  };

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (id) => clients.get(id),
    ...(options.registration === false
      ? {}
      : {
          registerClient: (client: OAuthClientInformationFull) => {
            clients.set(client.client_id, client);
            state.registrations.push(client);
            return client;
          },
        }),
  };
  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, res: Response) {
      state.authorizations.push({ ...params, clientId: client.client_id });
      const code = `code-${Math.random().toString(36).slice(2)}`;
      codes.set(code, { client, params });
      const back = new URL(params.redirectUri);
      back.searchParams.set("code", code);
      if (params.state !== undefined) {
        back.searchParams.set("state", params.state);
      }
      res.redirect(302, back.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const grant = codes.get(code);
      if (!grant) {
        throw new InvalidGrantError("unknown or used code");
      }
      return grant.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const grant = codes.get(code);
      if (!grant || grant.client.client_id !== client.client_id) {
        throw new InvalidGrantError("unknown or used code");
      }
      codes.delete(code);
      return issue(client.client_id, grant.params.scopes ?? []);
    },
    async exchangeRefreshToken(client, refreshToken) {
      const grant = refreshTokens.get(refreshToken);
      if (!grant || grant.clientId !== client.client_id) {
        throw new InvalidGrantError("unknown refresh token");
      }
      refreshTokens.delete(refreshToken);
      return issue(client.client_id, grant.scopes);
    },
    async verifyAccessToken(token) {
      const info = accessTokens.get(token);
      if (!info) {
        throw new InvalidTokenError("unknown token");
      }
      return info;
    },
  };

  const metadata: OAuthMetadata = {
    issuer,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: options.authMethods ?? ["client_secret_post", "none"],
    scopes_supported: ["read", "write"],
    ...(options.s256 === false ? {} : { code_challenge_methods_supported: ["S256"] }),
    ...(options.registration === false ? {} : { registration_endpoint: `${origin}/register` }),
    ...(options.cimd ? { client_id_metadata_document_supported: true } : {}),
  };
  const prm = {
    resource: mcpUrl,
    authorization_servers: [issuer],
    scopes_supported: ["read"],
  };
  const prmPath =
    options.prm === "root"
      ? "/.well-known/oauth-protected-resource"
      : options.prm === "header-only"
        ? "/meta/prm.json"
        : "/.well-known/oauth-protected-resource/mcp";
  app.use(prmPath, metadataHandler(prm));
  const asPaths = {
    oauth: "/.well-known/oauth-authorization-server",
    "oauth-path": "/.well-known/oauth-authorization-server/tenant",
    "oidc-path-insert": "/.well-known/openid-configuration/tenant",
    "oidc-path-append": "/tenant/.well-known/openid-configuration",
  };
  const oidc = options.asMetadata?.startsWith("oidc");
  app.use(
    asPaths[options.asMetadata ?? "oauth"],
    metadataHandler(
      oidc
        ? ({
            ...metadata,
            jwks_uri: `${origin}/jwks`,
            subject_types_supported: ["public"],
            id_token_signing_alg_values_supported: ["RS256"],
          } as OAuthMetadata)
        : metadata,
    ),
  );
  app.use("/authorize", authorizationHandler({ provider, rateLimit: false }));
  app.use(
    "/token",
    express.urlencoded({ extended: false }),
    (req, _res, next) => {
      // The SDK's token handler reads client credentials from the body only: accept
      // client_secret_basic too, as the metadata may advertise it.
      state.tokenRequests.push({
        grantType: String(req.body?.grant_type),
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        ...(req.body?.client_secret ? { clientSecret: String(req.body.client_secret) } : {}),
      });
      const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
      if (basic) {
        const [id, secret] = Buffer.from(basic, "base64")
          .toString()
          .split(":")
          .map(decodeURIComponent);
        req.body = { ...req.body, client_id: id, client_secret: secret };
      }
      next();
    },
    tokenHandler({ provider, rateLimit: false }),
  );
  if (options.registration !== false) {
    app.use("/register", clientRegistrationHandler({ clientsStore, rateLimit: false }));
  }

  // The MCP endpoint: `whoami` needs any token, `write` needs the `write` scope (step-up).
  const resourceMetadataUrl = `${origin}${prmPath}`;
  const anyToken = requireBearerAuth({ verifier: provider, resourceMetadataUrl });
  const writeScope = requireBearerAuth({
    verifier: provider,
    requiredScopes: ["read", "write"],
    resourceMetadataUrl,
  });
  app.use("/mcp", express.json(), (req, res, next) => {
    state.bearers.push(req.headers.authorization ?? "");
    const wantsWrite = req.body?.method === "tools/call" && req.body?.params?.name === "write";
    (wantsWrite ? writeScope : anyToken)(req, res, next);
  });
  app.post("/mcp", async (req, res) => {
    const server = new Server(
      { name: "oauth-test", version: "1.0.0" },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: "whoami", inputSchema: { type: "object" } },
        { name: "write", inputSchema: { type: "object" } },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const key = request.params._meta?.["io.toolnexus/idempotency-key"];
      if (typeof key === "string") {
        state.idempotencyKeys.push(key);
        const answered = answeredByKey.get(key);
        if (answered) {
          return answered;
        }
      }
      state.toolCalls.push(request.params.name);
      const result = {
        content: [
          {
            type: "text" as const,
            text: `${request.params.name} as ${extra.authInfo?.clientId} with ${extra.authInfo?.scopes.join(" ")}`,
          },
        ],
      };
      if (typeof key === "string") {
        answeredByKey.set(key, result);
      }
      return result;
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.all("/mcp", (_req, res) => {
    res.status(405).set("allow", "POST").end();
  });
  return state;
}

/** Follows an `authorization` request's URL like a browser whose person consents; the URL it lands on. */
export async function consent(url: string): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  const location = response.headers.get("location");
  await response.body?.cancel();
  if (response.status !== 302 || !location) {
    throw new Error(
      `authorize answered ${response.status}: ${await response.text().catch(() => "")}`,
    );
  }
  return location;
}
