/** `GET /oauth/start` and `GET /oauth/callback` in /openapi.json (src/edge/http/openapi/document.ts spreads it in). */
import { html } from "../http/openapi/parts";

/** The authorization server's redirect carries no credential: the signed `state` is checked. */
const open: never[] = [];

const query = (name: string, description: string) => ({
  name,
  in: "query",
  required: false,
  description,
  schema: { type: "string" },
});

export const OAUTH_PATHS = {
  "/oauth/start": {
    get: {
      operationId: "startMcpSignIn",
      summary:
        "The sign-in link an MCP sign-in request shows its requester: binds this browser to the sign-in and redirects to the authorization server",
      description:
        "Served only when an agent's MCP server has `oauth`. The link (the request's `url`) is signed by this edge; it sets an HttpOnly, SameSite=Lax cookie (path /oauth, 15 minutes) that /oauth/callback requires, so only the browser that opened the link can complete the sign-in. It is the requester's: the run timeline and view links leave it out.",
      security: open,
      parameters: [
        query("to", "The authorization URL the link leads to"),
        query("sig", "This edge's signature of `to`"),
      ],
      responses: {
        302: { description: "To the authorization server, with the binding cookie set" },
        400: html("A link this edge did not sign, or altered: nothing set"),
        404: html("JSON not_found when no agent uses oauth"),
      },
    },
  },
  "/oauth/callback": {
    get: {
      operationId: "finishMcpSignIn",
      summary:
        "Where the browser lands after an MCP sign-in (the default oauth redirectUrl): records the answer to the run's authorization request and resumes the run",
      description:
        "Served only when an agent's MCP server has `oauth`. The `state` is one this edge signed (under a key derived from MCP_TOKEN_KEY) naming the thread, run and request; anything else is 400 and nothing is written. Only the browser that opened the request's sign-in link (GET /oauth/start) holds the cookie this route requires (else 403). A valid callback is recorded through the ledger like any decision (channel `oauth`, decidedBy the run's requestedBy, else `thread:<threadId>`): with `code`, the code is first redeemed at the token endpoint and the tokens stored (encrypted, per subject), then the answer `{ callbackUrl }` with the code replaced by `sha256:<its hash>` is recorded and the run goes on (a code the token endpoint refuses is 400, a failing token endpoint 502, nothing recorded either way: the sign-in link brings a new code); with `error`, a decline with reason `authorization denied: <error>`; with neither, 400. Tokens and codes never appear in any response or record.",
      security: open,
      parameters: [
        query("state", "The signed state the authorization request carried"),
        query("code", "The authorization code (exchanged by the run, with the PKCE verifier)"),
        query(
          "error",
          "An OAuth error (RFC 6749 §4.1.2.1), e.g. access_denied: the request is declined",
        ),
        query("error_description", "Ignored"),
        query("iss", "The issuer (RFC 9207); carried to the run in callbackUrl"),
      ],
      responses: {
        200: html(
          'Recorded: "signed in to <server>; you can close this tab", or, with `error`, the sign-in was declined (authorization denied: <error>)',
        ),
        400: html(
          "The state is missing, made up or altered, the callback has neither code nor error, or the token endpoint refused the code: nothing recorded",
        ),
        403: html("This browser did not open the request's sign-in link: nothing recorded"),
        404: html("Unknown run or request (JSON not_found when no agent uses oauth)"),
        409: html("Already used: this request was answered before, or is no longer waiting"),
        502: html("The token endpoint failed or could not be reached: nothing recorded"),
      },
    },
  },
};
