/**
 * The receipt of a decision, drafted from what the ledger holds the moment it inserts the
 * decision (same transaction): the request, its rule, the votes that counted and the final
 * arguments. The chain (`seq`, `at`, `prev`) and the signature are added by ThreadReceipts.
 */
import type { Request } from "../../src/core/types";
import { argsHash } from "../../src/core/approvers/args-hash";
import { rulesOf } from "../../src/core/approvers/rules";
import { currentArgs, type Vote } from "../../src/core/approvers/vote";
import {
  receiptRule,
  type ReceiptDecision,
  type ReceiptDraft,
  type ReceiptVote,
} from "../../src/edge/receipts/receipt";
import type { DecisionRow, RunRow } from "../storage/run-store";
import { receiptPolicyFields } from "../../src/edge/policy/receipt-policy";

/** The inbox's outcome words for the ledger's decisions. */
const DECISION_WORDS: Record<DecisionRow["decision"], ReceiptDecision> = {
  approve: "approved",
  decline: "declined",
  expire: "expired",
  cancel: "cancelled",
  revoke: "revoked",
};

export interface DraftInput {
  run: RunRow;
  request: Request;
  decision: Omit<DecisionRow, "appliedAt">;
  /** Every vote on the request, reset ones too (a reset vote did not count: it is left out). */
  votes: readonly Vote[];
  /** The version the request suspended under (the run's, recorded at suspension). */
  agentVersion: string;
}

export function receiptDraft(input: DraftInput): ReceiptDraft {
  const { run, request, decision } = input;
  const counted = input.votes.filter((vote) => !vote.reset);
  const reason = refusalReason(decision);
  const args = answerArgs(decision) ?? currentArgs(request, input.votes);
  return {
    threadId: run.threadId,
    runId: run.runId,
    requestId: request.id,
    tool: toolOf(request),
    // The arguments the tool runs with: a migration's or an edit's (the answer's data.args), else the request's.
    argsHash: argsHash(args),
    agentVersion: input.agentVersion,
    rule: receiptRule(rulesOf(request)),
    decision: DECISION_WORDS[decision.decision],
    ...(reason === undefined ? {} : { reason }),
    ...(decision.decidedBy ? { decidedBy: decision.decidedBy } : {}),
    ...(decision.onBehalfOf ? { onBehalfOf: decision.onBehalfOf } : {}),
    ...(counted.length > 0 ? { votes: counted.map(receiptVote) } : {}),
    channel: decision.channel,
    // Which policy decided, and what policy-replay needs (issue 43).
    ...receiptPolicyFields(request, { args, requestedBy: run.requestedBy, agent: run.agent }),
  };
}

/** The tool a request is about: an approval's `data.tool`, a relayed call's `data.name`, else its kind. */
function toolOf(request: Request): string {
  const named = request.data?.tool ?? request.data?.name;
  return typeof named === "string" && named.length > 0 ? named : request.kind;
}

function receiptVote(vote: Vote): ReceiptVote {
  return {
    decidedBy: vote.decidedBy,
    decision: vote.decision,
    channel: vote.channel,
    at: vote.at,
    ...(vote.onBehalfOf ? { onBehalfOf: vote.onBehalfOf } : {}),
  };
}

/** An approval's `data.args` (an approver's edit, or a version migration): what the tool runs with. */
function answerArgs(decision: Omit<DecisionRow, "appliedAt">): Record<string, unknown> | undefined {
  if (decision.decision !== "approve") {
    return undefined;
  }
  const data = decision.answer.ok
    ? (decision.answer.data as { args?: unknown } | undefined)
    : undefined;
  const args = data?.args;
  return typeof args === "object" && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : undefined;
}

/** A refusal's reason, from the answer the decision became. */
function refusalReason(decision: Omit<DecisionRow, "appliedAt">): string | undefined {
  if (decision.decision === "approve") {
    return undefined;
  }
  const { reason } = decision.answer as { reason?: unknown };
  return typeof reason === "string" ? reason : undefined;
}
