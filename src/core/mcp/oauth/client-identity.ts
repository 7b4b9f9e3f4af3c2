/**
 * Who we are to the authorization server, in the spec's order: the `clientId` (and
 * `clientSecret`) the config gives; else a Client ID Metadata Document at
 * `clientMetadataUrl` when the server advertises support for them; else a client
 * registered dynamically (RFC 7591), remembered in the token store so it is made once.
 */
import { registerClient } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import { errorMessage } from "../../errors";
import type { McpOAuthConfig } from "./config";
import type { Discovery } from "./discover";
import type { StoredClient } from "./store";

export const CLIENT_NAME = "toolnexus-edge";

export interface Identity {
  info: OAuthClientInformationMixed;
  /** Set when a client was registered now: the caller stores it. */
  registered?: StoredClient;
}

/** `remembered`: the client registered on an earlier sign-in; `fetch` registers a new one. */
export async function clientIdentity(
  config: McpOAuthConfig,
  discovery: Discovery,
  { remembered, fetch: fetchFn }: { remembered: StoredClient | undefined; fetch: typeof fetch },
): Promise<Identity> {
  if (config.clientId !== undefined) {
    return {
      info: {
        client_id: config.clientId,
        ...(config.clientSecret === undefined ? {} : { client_secret: config.clientSecret }),
      },
    };
  }
  if (
    config.clientMetadataUrl !== undefined &&
    discovery.metadata.client_id_metadata_document_supported
  ) {
    return { info: { client_id: config.clientMetadataUrl } };
  }
  if (
    remembered &&
    remembered.issuer === discovery.issuer &&
    remembered.redirectUrl === config.redirectUrl
  ) {
    return { info: toInfo(remembered) };
  }
  if (!discovery.metadata.registration_endpoint) {
    throw new Error(
      `${discovery.issuer} offers neither dynamic client registration nor client metadata documents${config.clientMetadataUrl ? "" : " we could use"}: give oauth.clientId`,
    );
  }
  try {
    const full = await registerClient(discovery.issuer, {
      metadata: discovery.metadata,
      clientMetadata: {
        client_name: CLIENT_NAME,
        redirect_uris: [config.redirectUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
      fetchFn,
    });
    const registered: StoredClient = {
      issuer: discovery.issuer,
      redirectUrl: config.redirectUrl,
      clientId: full.client_id,
      ...(full.client_secret === undefined ? {} : { clientSecret: full.client_secret }),
    };
    return { info: full, registered };
  } catch (error) {
    throw new Error(`dynamic client registration at ${discovery.issuer}: ${errorMessage(error)}`);
  }
}

function toInfo(client: StoredClient): OAuthClientInformationMixed {
  return {
    client_id: client.clientId,
    ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
  };
}
