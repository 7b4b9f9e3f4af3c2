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
import type { ActiveDelegation } from "../protocol";
import { delegatedGroups, delegationsOf } from "../delegations/lookup";

type Ctx = Context<{ Bindings: EdgeEnv }>;

export interface InboxVisitor {
  identity: string;
  member: string;
  groups: string[];
  /** Issue 42: the delegations the visitor holds now (their givers' inboxes are in `groups`). */
  delegations?: ActiveDelegation[];
}

export async function inboxSignedIn(
  c: Ctx,
  approverGroups: ApproverGroupsInit | undefined,
): Promise<InboxVisitor | undefined> {
  const identity =
    (await accessIdentity(settings(c.env).access, c.req.raw.headers)) ?? (await sessionIdentity(c));
  if (identity === undefined) {
    return undefined;
  }
  const { member, groups } = inboxMember(c.env, identity, approverGroups);
  const delegations = await delegationsOf(c.env, identity, approverGroups);
  if (!delegations) {
    return { identity, member, groups };
  }
  const directory = settings(c.env).approvers(approverGroups);
  const more = delegatedGroups(delegations, (m) => directory.groupsOfMember(m));
  return { identity, member, groups: [...new Set([...groups, ...more])], delegations };
}

/** What a visitor without a session sees (status 401). */
export function signInPage(): string {
  return renderMessagePage(
    "Sign in",
    "Open the sign-in link you were sent (or sign in through Cloudflare Access) to see your approvals.",
    "error",
  );
}
