/**
 * Finding out how to sign in to an MCP server (MCP authorization 2025-11-25):
 * protected resource metadata (RFC 9728: the challenge's `resource_metadata`, else the
 * well-known URI at the server's path, then at its root), then the authorization
 * server's metadata (RFC 8414 and OpenID discovery with the path-insertion variants).
 * The SDK's discovery helpers do the fetching; the rules the spec puts on a client are
 * checked here: PKCE S256 must be advertised, the `resource` must cover the server.
 */
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
} from "@modelcontextprotocol/sdk/client/auth.js";
import {
  checkResourceAllowed,
  resourceUrlFromServerUrl,
} from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import type { AuthorizationServerMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { errorMessage } from "../../errors";
import type { AuthChallenge } from "./challenge";

export interface Discovery {
  /** The authorization server's issuer (or its URL when the metadata names none). */
  issuer: string;
  metadata: AuthorizationServerMetadata;
  /** RFC 8707 `resource`: the metadata's `resource`, else the server URL. */
  resource: string;
  /** `scopes_supported` of the protected resource, else of the authorization server. */
  scopesSupported?: string[];
}

/** Discovers; throws an `Error` whose message says which step failed and why. */
export async function discover(
  serverUrl: string,
  challenge: AuthChallenge | undefined,
  fetchFn: typeof fetch,
): Promise<Discovery> {
  let resource = resourceUrlFromServerUrl(serverUrl).href;
  let authorizationServer: string;
  let scopesSupported: string[] | undefined;
  try {
    const prm = await discoverOAuthProtectedResourceMetadata(
      serverUrl,
      challenge?.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {},
      fetchFn,
    );
    if (!checkResourceAllowed({ requestedResource: serverUrl, configuredResource: prm.resource })) {
      throw new Error(`its resource ${prm.resource} does not cover ${serverUrl}`);
    }
    resource = prm.resource;
    const first = prm.authorization_servers?.[0];
    if (first === undefined) {
      throw new Error("it names no authorization server");
    }
    authorizationServer = first;
    scopesSupported = prm.scopes_supported;
  } catch (error) {
    throw new Error(`protected resource metadata for ${serverUrl}: ${errorMessage(error)}`);
  }

  let metadata: AuthorizationServerMetadata | undefined;
  try {
    metadata = await discoverAuthorizationServerMetadata(authorizationServer, { fetchFn });
  } catch (error) {
    throw new Error(`authorization server ${authorizationServer}: ${errorMessage(error)}`);
  }
  if (!metadata) {
    throw new Error(`authorization server ${authorizationServer}: no metadata found`);
  }
  if (!metadata.code_challenge_methods_supported?.includes("S256")) {
    throw new Error(
      `authorization server ${authorizationServer} does not offer PKCE S256; refusing to sign in`,
    );
  }
  return {
    issuer: metadata.issuer ?? authorizationServer,
    metadata,
    resource,
    ...definedScopes(scopesSupported ?? metadata.scopes_supported),
  };
}

function definedScopes(scopes: string[] | undefined): { scopesSupported?: string[] } {
  return scopes && scopes.length > 0 ? { scopesSupported: scopes } : {};
}

/**
 * The scope to ask for: the challenge's, else the config's, else `scopes_supported`,
 * else none. On step-up the scope already granted is kept.
 * @example chooseScope({ challenge: "write", granted: "read" }) // "read write"
 */
export function chooseScope(sources: {
  challenge?: string;
  configured?: string;
  supported?: string[];
  granted?: string;
}): string | undefined {
  const wanted = sources.challenge ?? sources.configured ?? sources.supported?.join(" ");
  const all = [...(sources.granted?.split(" ") ?? []), ...(wanted?.split(" ") ?? [])];
  const unique = [...new Set(all.filter((s) => s !== ""))];
  return unique.length > 0 ? unique.join(" ") : undefined;
}
