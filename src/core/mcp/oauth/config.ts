/**
 * The `oauth` block of an MCP server entry (names fixed by issue 25):
 * `oauth: { redirectUrl, clientId?, clientSecret?, clientMetadataUrl?, scope? }`.
 */
import * as z from "zod";

export interface McpOAuthConfig {
  /** Where the authorization server sends the browser back (our callback). */
  redirectUrl: string;
  /** A client registered beforehand; without it we use a metadata document or register. */
  clientId?: string;
  clientSecret?: string;
  /** An https URL serving our Client ID Metadata Document, used where the server supports them. */
  clientMetadataUrl?: string;
  /** Asked for when the server's challenge names no scope. */
  scope?: string;
}

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

// Other clients put their own keys here too (Claude Code: callbackPort): tolerated.
export const OAuthConfigSchema = z.looseObject({
  redirectUrl: httpUrl,
  clientId: z.string().min(1).optional(),
  clientSecret: z.string().min(1).optional(),
  clientMetadataUrl: httpUrl.optional(),
  scope: z.string().optional(),
});
