/**
 * Who an API-token caller acts for: the optional `x-toolnexus-user` header beside the Bearer
 * token (docs/architecture.md §7 "Identity behind the API token"). It becomes `requestedBy`
 * on a run the caller starts and `decidedBy` on an answer it sends; without it the caller is
 * anonymous and may answer only requests without approver rules.
 */
import { MAX_IDENTITY_CHARS } from "../http/schemas";
import { withoutSignInLink } from "../oauth/sign-in-request";
import type { RunView } from "../protocol";

export const CALLER_HEADER = "x-toolnexus-user";

export type CallerIdentity = { ok: true; id: string | undefined } | { ok: false; message: string };

/** The caller's identity from request headers, trimmed; a malformed value is refused, never cut. */
export function callerIdentity(headers: Headers): CallerIdentity {
  const raw = headers.get(CALLER_HEADER);
  if (raw === null) {
    return { ok: true, id: undefined };
  }
  const id = raw.trim();
  if (!id) {
    return { ok: false, message: `${CALLER_HEADER} must not be empty` };
  }
  if (id.length > MAX_IDENTITY_CHARS) {
    return {
      ok: false,
      message: `${CALLER_HEADER} is longer than ${MAX_IDENTITY_CHARS} characters`,
    };
  }
  return { ok: true, id };
}

/** Whether two identities are the same caller (emails compare case-insensitively, as members do). */
export function sameCaller(a: string | null | undefined, b: string | null | undefined): boolean {
  return (a ?? "").toLowerCase() === (b ?? "").toLowerCase();
}

/**
 * The run as `caller` sees it: an MCP sign-in's link is its requester's alone (opening it
 * binds the browser to the sign-in: src/edge/oauth/sign-in-link.ts), so anyone else sees the
 * request without it.
 */
export function runForCaller(view: RunView, caller: string | null | undefined): RunView {
  return view.pending && !sameCaller(view.requestedBy, caller)
    ? { ...view, pending: withoutSignInLink(view.pending) }
    : view;
}
