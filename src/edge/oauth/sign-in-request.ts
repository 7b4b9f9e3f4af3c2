/**
 * Tells an MCP sign-in request apart from other `authorization` requests: the kernel's
 * (src/core/mcp/oauth/session.ts) carry the server and its authorization server in `data`.
 * A sign-in is the requester's own step (their tokens are stored), so it goes to the run's
 * notifications and events only, never to approver groups' inboxes or Slack.
 */
import type { Request } from "../../core/types";

export function isMcpSignIn(request: Request): boolean {
  const data = request.data as { server?: unknown; authorizationServer?: unknown } | undefined;
  return (
    request.kind === "authorization" &&
    typeof data?.server === "string" &&
    typeof data.authorizationServer === "string"
  );
}

/**
 * The request as anyone but its requester may see it: an MCP sign-in without its `url` (the
 * sign-in link binds whoever opens it: issue 37). Other requests are returned as they are.
 */
export function withoutSignInLink<T extends Request>(request: T): T {
  if (!isMcpSignIn(request) || request.url === undefined) {
    return request;
  }
  const { url: _theRequesters, ...rest } = request;
  return rest as T;
}
