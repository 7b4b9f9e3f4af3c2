/**
 * Whether a vote's caller stands in for someone (issue 42, docs/approvers.md "Delegation").
 * The route hands the ledger the delegations the caller holds now (`DecisionInput.delegations`);
 * this picks the one, if any, that lets them decide this request. The kernel's `decideVote`
 * then checks the seat like any vote: the member stood in for must be eligible, the request
 * must be neither the delegate's nor that member's own, and one seat (like one person) votes once.
 */
import { groupsOf, type Rules } from "../../src/core/approvers/rules";
import type { Vote } from "../../src/core/approvers/vote";
import type { ActiveDelegation } from "../../src/edge/protocol";

export interface StandInQuestion {
  /** The caller (member id). */
  who: string | undefined;
  delegations: readonly ActiveDelegation[] | undefined;
  rules: Rules;
  /** Who may decide now (the rule's members, escalation included). */
  members: ReadonlySet<string>;
  votes: readonly Vote[];
  now: number;
}

/**
 * The member the caller stands in for, or undefined: they vote as themselves. A member who may
 * decide in their own right always does (so a delegate who is a member counts once, as
 * themselves). Otherwise the first delegation that is still running, covers the request's
 * groups and names someone who may decide; one whose seat has not voted yet comes first.
 */
export function standInFor(question: StandInQuestion): string | undefined {
  const { who, delegations, members, now } = question;
  if (!who || !delegations?.length || members.has(who)) {
    return undefined;
  }
  const groups = groupsOf(question.rules);
  const usable = delegations.filter(
    (d) =>
      d.to === who &&
      d.from !== who &&
      Date.parse(d.until) > now &&
      members.has(d.from) &&
      (d.groups === undefined || d.groups.some((g) => groups.includes(g))),
  );
  const seated = new Set(
    question.votes.filter((v) => !v.reset).map((v) => v.onBehalfOf ?? v.decidedBy),
  );
  return (usable.find((d) => !seated.has(d.from)) ?? usable[0])?.from;
}
