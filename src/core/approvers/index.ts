/**
 * Approvers as data (docs/architecture.md §6): rules on the request, one pure function deciding
 * each vote, and an in-process ballot built on it.
 */
export { parseDuration } from "./duration";
export type { Duration } from "./duration";
export { validateRules, rulesOf, groupsOf, quorumOf, eligibleMembers } from "./rules";
export type { Rules } from "./rules";
export { argsHash } from "./args-hash";
export {
  decideVote,
  currentArgs,
  originalArgs,
  changedKeys,
  liveApprovals,
  VOTE_REFUSAL_STATUS,
} from "./vote";
export type {
  Vote,
  Ballot,
  VoteChannel,
  VoteDecision,
  VoteInput,
  VoteOutcome,
  VoteRefusal,
} from "./vote";
export { createBallot } from "./ballot";
export type { BallotOptions, RequestBallot } from "./ballot";
