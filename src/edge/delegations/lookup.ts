/**
 * The delegations a decision's caller holds now, for the ledger (issue 42): the decision routes
 * call this with the caller's identity and pass what it finds in `DecisionInput.delegations`.
 * Someone in no approver group holds none (and nothing is read).
 */
import type { ApproverGroupsInit } from "../approvals/groups";
import type { ActiveDelegation } from "../protocol";
import { type EdgeEnv, settings } from "../settings";
import { delegationStub } from "./rpc";

export async function delegationsOf(
  env: EdgeEnv,
  identity: string | undefined,
  approverGroups: ApproverGroupsInit | undefined,
): Promise<ActiveDelegation[] | undefined> {
  if (!identity?.trim()) {
    return undefined;
  }
  const member = settings(env).approvers(approverGroups).memberOf(identity);
  if (member === undefined) {
    return undefined;
  }
  const held = await delegationStub(env).delegationsTo(member, Date.now());
  return held.length > 0 ? held : undefined;
}

/**
 * The groups whose requests a member may decide as a delegate: each running delegation's
 * `groups`, else every group of the member who gave it (their inboxes show on the delegate's page).
 */
export function delegatedGroups(
  delegations: readonly ActiveDelegation[] | undefined,
  groupsOfMember: (member: string) => string[],
): string[] {
  return [...new Set((delegations ?? []).flatMap((d) => d.groups ?? groupsOfMember(d.from)))];
}

/** `{ delegations }` to spread into a `DecisionInput` (nothing when the caller holds none). */
export async function withDelegations(
  env: EdgeEnv,
  identity: string | undefined,
  approverGroups: ApproverGroupsInit | undefined,
): Promise<{ delegations?: ActiveDelegation[] }> {
  const delegations = await delegationsOf(env, identity, approverGroups);
  return delegations ? { delegations } : {};
}
