/**
 * Which inboxes exist and who sees which: `default` (requests whose rules name no group)
 * and every approver group. Checked before an `InboxObject` is touched, so an unknown
 * name creates no storage.
 */
import type { ApproverGroupsInit } from "../approvals/groups";
import { type EdgeEnv, settings } from "../settings";
import { DEFAULT_GROUP } from "./item";

export function inboxGroups(env: EdgeEnv, code?: ApproverGroupsInit): Set<string> {
  return new Set([DEFAULT_GROUP, ...settings(env).approvers(code).groups.keys()]);
}

/**
 * The member an identity is (emails case-insensitive), and the inboxes they see: their
 * groups, plus `default`, whose requests carry no rules and so are anyone's to decide.
 */
export function inboxMember(
  env: EdgeEnv,
  identity: string,
  code?: ApproverGroupsInit,
): { member: string; groups: string[] } {
  const directory = settings(env).approvers(code);
  const member = directory.resolve(identity);
  return { member, groups: [...directory.groupsOfMember(member), DEFAULT_GROUP] };
}
