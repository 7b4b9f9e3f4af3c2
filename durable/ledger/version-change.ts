/**
 * What a newer deploy's version check writes into the ledger (docs/architecture.md §4;
 * docs/versions.md): the answer it gave a decision recorded before the
 * deploy, and a request it superseded because the migrated arguments need other approvers. The
 * ledger stays the only writer of decision rows, and every change leaves a receipt in the same
 * transaction (the caller's).
 *
 * A superseded request is closed by a `cancel` row on channel `version`, applied at once (nothing
 * runs on it), whose answer names its successor (`data.supersededBy`); the receipt says
 * `cancelled` with the same reason. Any later decision for it is `409 request_not_pending`.
 */
import { answerOutput } from "../../src/core/answers";
import { isRecord } from "../../src/core/approvers/rules";
import { originalArgs } from "../../src/core/approvers/vote";
import type { Answer, Request } from "../../src/core/types";
import type { DecisionOutcome } from "../../src/edge/protocol";
import type { ReceiptDraft } from "../../src/edge/receipts/receipt";
import { receiptDraft } from "../receipts/draft";
import { UNRECORDED_VERSION } from "../receipts/record";
import { requestVersion } from "../versions/request-version";
import { decisionView } from "../storage/decision-view";
import type { DecisionRow, RunRow, RunStore } from "../storage/run-store";
import type { VoteStore } from "../storage/vote-store";

/** The channel of what the version check decided instead of a person (receipts and rows). */
export const VERSION_CHANNEL = "version";

export interface VersionLedgerDeps {
  store: RunStore;
  votes?: VoteStore;
  /** Appends a receipt to the thread's chain (inside the caller's transaction). */
  appendReceipt?(draft: ReceiptDraft, at: Date): void;
}

/** A recorded decision the version check answers otherwise when it is applied. */
export interface ReplacedAnswer {
  run: RunRow;
  request: Request;
  decision: DecisionRow;
  /** What the run is given instead: an `agent_changed` refusal, or the migrated arguments. */
  answer: Answer;
  /** The version that checked it. */
  version: string;
  now: number;
}

/**
 * The row keeps who decided what and takes the answer the run is given and the version that
 * checked it; a receipt on channel `version` (no `decidedBy`) records the change after the
 * approval's. Inside the caller's transaction.
 */
export function replaceAnswer(deps: VersionLedgerDeps, change: ReplacedAnswer): void {
  const { run, request, decision, answer, version, now } = change;
  const row: Omit<DecisionRow, "appliedAt"> = {
    ...decision,
    decision: answer.ok ? "approve" : "decline",
    answer,
    decidedBy: null, // the agent's version check, not a person
  };
  deps.store.checkedUnder(request.id, version, answer);
  appendVersionReceipt(deps, { run, request, row, now });
}

/** A request the version check withdraws in favour of `next`, asked of other approvers. */
export interface Superseded {
  run: RunRow;
  request: Request;
  next: Request;
  /** Why (`agent_changed: …`). */
  reason: string;
  /** The version that asks `next`: recorded on the row, so `next` is known to be asked under it. */
  version: string;
  now: number;
}

/**
 * Closes `request` in favour of `next`: a `cancel` row on channel `version`, applied at once,
 * with its receipt. A decision already recorded for it (before a deploy, applied after it)
 * keeps who decided and takes the superseding answer, with a second receipt after the first.
 * Inside the caller's transaction. Returns the decision as the inbox and the receipt tell it
 * (cancelled by the version check).
 */
export function supersedeRequest(deps: VersionLedgerDeps, change: Superseded): DecisionRow {
  const { run, request, next, version, now } = change;
  const answer: Answer = {
    id: request.id,
    ok: false,
    reason: `superseded by ${next.id}: ${change.reason}`,
    data: { supersededBy: next.id },
  };
  const recorded = deps.store.decision(request.id);
  const told: DecisionRow = {
    requestId: request.id,
    runId: run.runId,
    decision: "cancel",
    answer,
    channel: VERSION_CHANNEL,
    decidedBy: null,
    webhookId: recorded?.webhookId ?? null,
    decidedAt: recorded?.decidedAt ?? now,
    appliedAt: now,
    agentVersion: version,
  };
  if (recorded) {
    deps.store.checkedUnder(request.id, version, answer);
    appendVersionReceipt(deps, { run, request, row: told, now });
  } else {
    // The receipt is the store's listener's, appended with the row (durable/receipts/record.ts).
    const { appliedAt: _, agentVersion: __, ...row } = told;
    deps.store.insertDecision(row, request);
    deps.store.checkedUnder(request.id, version);
  }
  deps.store.markApplied(request.id, now);
  deps.votes?.stopTimers(request.id);
  return told;
}

/** The request a superseded one was asked again as, or undefined for any other decision. */
export function supersededBy(row: DecisionRow): string | undefined {
  const data = row.answer.ok ? undefined : row.answer.data;
  const next = isRecord(data) ? data.supersededBy : undefined;
  return typeof next === "string" ? next : undefined;
}

/** The answer to a decision for a superseded request: it is no longer pending; its successor is. */
export function supersededRefusal(
  row: DecisionRow,
): Extract<DecisionOutcome, { ok: false }> | undefined {
  const next = supersededBy(row);
  if (next === undefined || row.answer.ok) {
    return undefined;
  }
  return {
    ok: false,
    code: "request_not_pending",
    message: `request ${row.requestId} is no longer pending (${row.answer.reason}): decide ${next}`,
    decision: decisionView(row),
  };
}

/**
 * The arguments the ledger itself puts on an approval's answer, the only `data.args` a run is
 * given besides an edit's (which `decideVote` sets once the edit checks passed; a caller's own
 * `data.args` is refused before this): the agent's current version migrated them (`migrated`,
 * which wins: it was computed from the arguments that would otherwise run), or the request was
 * asked again after a migration, so its arguments are not the call's. The tool runs with an
 * answer's `data.args` only (src/core/loop/execute-call.ts), so the receipt's `argsHash` is what
 * runs.
 */
export function withLedgerArgs(
  answer: Answer,
  { request, migrated }: { request: Request; migrated?: Record<string, unknown> | undefined },
): Answer {
  if (!answer.ok) {
    return answer;
  }
  const data = isRecord(answer.data) ? answer.data : {};
  if (migrated !== undefined) {
    // `argsMigrated`: the model is told the migration changed them, not an approver.
    return answerOutput(answer.id, { ...data, args: migrated, argsMigrated: true });
  }
  if (typeof request.data?.supersedes !== "string") {
    return answer;
  }
  return data.args === undefined
    ? answerOutput(answer.id, { ...data, args: originalArgs(request) })
    : answer;
}

function appendVersionReceipt(
  deps: VersionLedgerDeps,
  change: { run: RunRow; request: Request; row: Omit<DecisionRow, "appliedAt">; now: number },
): void {
  const { run, request, row, now } = change;
  deps.appendReceipt?.(
    {
      ...receiptDraft({
        run,
        request,
        decision: row,
        votes: [],
        agentVersion: requestVersion(deps.store, run, request) ?? UNRECORDED_VERSION,
      }),
      channel: VERSION_CHANNEL,
    },
    new Date(now),
  );
}
