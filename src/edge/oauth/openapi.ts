/** `GET /oauth/callback` in /openapi.json (src/edge/http/openapi/document.ts spreads it in). */
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
  "/oauth/callback": {
    get: {
      operationId: "finishMcpSignIn",
      summary:
        "Where the browser lands after an MCP sign-in (the default oauth redirectUrl): records the answer to the run's authorization request and resumes the run",
      description:
        "Served only when an agent's MCP server has `oauth`. The `state` is one this edge signed (under a key derived from MCP_TOKEN_KEY) naming the thread, run and request; anything else is 400 and nothing is written. A valid callback is recorded through the ledger like any decision (channel `oauth`, decidedBy the run's requestedBy, else `thread:<threadId>`): with `code`, the answer `{ callbackUrl }` (this full URL), and the run exchanges the code and goes on; with `error`, a decline with reason `authorization denied: <error>`. Tokens never appear in any response.",
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
        400: html("The state is missing, made up or altered: nothing recorded"),
        404: html("Unknown run or request (JSON not_found when no agent uses oauth)"),
        409: html("Already used: this request was answered before, or is no longer waiting"),
      },
    },
  },
};
