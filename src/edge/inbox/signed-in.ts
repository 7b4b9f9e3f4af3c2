/**
 * Who is signed in to the inbox pages (the inbox and the run timeline under `/inbox`):
 * Cloudflare Access in front of the worker vouches first, else a sign-in link's session
 * cookie; the identity's member id and groups come from APPROVER_GROUPS.
 */
import type { Context } from "hono";
import { type EdgeEnv, settings } from "../settings";
import type { ApproverGroupsInit } from "../approvals/groups";
import { renderMessagePage } from "../approvals/page";
import { accessIdentity } from "../approvals/access";
import { inboxMember } from "./groups";
import { sessionIdentity } from "./session";

type Ctx = Context<{ Bindings: EdgeEnv }>;

export interface InboxVisitor {
  identity: string;
  member: string;
  groups: string[];
}

export async function inboxSignedIn(
  c: Ctx,
  approverGroups: ApproverGroupsInit | undefined,
): Promise<InboxVisitor | undefined> {
  const identity =
    (await accessIdentity(settings(c.env).access, c.req.raw.headers)) ?? (await sessionIdentity(c));
  return identity === undefined
    ? undefined
    : { identity, ...inboxMember(c.env, identity, approverGroups) };
}

/** What a visitor without a session sees (status 401). */
export function signInPage(): string {
  return renderMessagePage(
    "Sign in",
    "Open the sign-in link you were sent (or sign in through Cloudflare Access) to see your approvals.",
    "error",
  );
}
