/**
 * Approver rules for an in-process `waitFor` host: one ballot per request collects
 * votes through `decideVote` (the same function the edge's ledger uses) and resolves
 * its `answer` once the request is applied.
 */
import type { Answer, Request } from "../types";
import { eligibleMembers, rulesOf } from "./rules";
import { decideVote, type Ballot, type Vote, type VoteChannel, type VoteOutcome } from "./vote";

export interface BallotOptions {
  /** Member ids of a group (undefined: no such group). */
  membersOf(group: string): readonly string[] | undefined;
  /** The member an identity belongs to (an email, `slack:T/U`, …); default: the identity itself. */
  memberOf?(identity: string): string | undefined;
  /** Who asked: with rules, they may not decide their own request. */
  requestedBy?: string;
  now?: () => number;
}

export interface RequestBallot {
  readonly request: Request;
  /** Records one vote and says what happened; refused votes change nothing. */
  cast(vote: Ballot & { channel?: VoteChannel }): VoteOutcome;
  /** Lets the rule's escalation group decide too (`escalate.to`). */
  escalate(): void;
  votes(): readonly Vote[];
  /** Resolves with the answer once the votes apply the request. */
  readonly answer: Promise<Answer>;
}

/**
 * @example
 * const waitFor = (request) => {
 *   const ballot = createBallot(request, { membersOf: (g) => groups[g] });
 *   queueForApprovers(ballot); // people call ballot.cast({ decidedBy, decision })
 *   return ballot.answer;
 * };
 */
export function createBallot(request: Request, options: BallotOptions): RequestBallot {
  const now = options.now ?? Date.now;
  const votes: Vote[] = [];
  let escalated = false;
  let settle: (answer: Answer) => void = () => {};
  const answer = new Promise<Answer>((resolve) => {
    settle = resolve;
  });
  const resolveMember = (identity: string) => options.memberOf?.(identity) ?? identity;

  return {
    request,
    answer,
    votes: () => votes,
    escalate() {
      escalated = true;
    },
    cast(vote) {
      const rules = rulesOf(request);
      const who = vote.decidedBy === undefined ? undefined : resolveMember(vote.decidedBy);
      const outcome = decideVote({
        request,
        members: rules ? eligibleMembers(rules, options, escalated) : [],
        ...(options.requestedBy === undefined
          ? {}
          : { requestedBy: resolveMember(options.requestedBy) }),
        votes,
        vote: { ...vote, ...(who === undefined ? {} : { decidedBy: who }) },
      });
      if (outcome.outcome === "refused") {
        return outcome;
      }
      if (outcome.edit) {
        for (const v of votes) {
          if (v.decision === "approve") {
            v.reset = true;
          }
        }
      }
      votes.push({
        decidedBy: who ?? "",
        decision: vote.decision,
        channel: vote.channel ?? "webhook",
        ...(outcome.edit ? { args: outcome.edit.args } : {}),
        argsHash: outcome.argsHash,
        at: new Date(now()).toISOString(),
      });
      if (outcome.outcome === "applied") {
        settle(outcome.answer);
      }
      return outcome;
    },
  };
}
