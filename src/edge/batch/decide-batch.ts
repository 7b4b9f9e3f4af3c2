/**
 * Several decisions at once (issue 42 item 1, `POST /v1/approvals/batch` and the inbox's
 * batch form): each item goes through its thread's ledger on its own, with the ledger's usual
 * order of checks, and answers its own status. Items of different threads go to different
 * Durable Objects, so they fan out (a few threads at a time); items of one thread go in the
 * order given, so a repeated item is the ledger's duplicate (200), never a race with itself.
 * One refused or failing item never keeps the others from being decided.
 */
import { errorMessage } from "../../core/errors";
import { ConfigError } from "../config-error";
import { decisionStatus } from "../http/status";
import { threadOf } from "../http/threads";
import type { DecisionInput, DecisionOutcome } from "../protocol";

/** The most items one batch may carry. */
export const MAX_BATCH_ITEMS = 100;
/** Threads decided at the same time (a Worker keeps at most six connections open at once). */
export const BATCH_CONCURRENCY = 6;

export interface BatchItem {
  runId: string;
  requestId: string;
  decision: "approve" | "decline" | "cancel";
  /** With approve: the version of the arguments the approver reviewed (older: 409 args_changed). */
  argsHash?: string;
  /** With decline/cancel: the reason the model sees. */
  reason?: string;
}

/** One item's outcome: the HTTP status the same decision would get on its own, and why. */
export interface BatchResult {
  runId: string;
  requestId: string;
  status: number;
  code?: string;
  message?: string;
  /** The identical repeat of a decision already recorded. */
  duplicate?: boolean;
  /** With approver rules: approvals that count now, and how many apply the request. */
  votes?: number;
  needed?: number;
  /** With `args_changed`: the version of the arguments now up for approval. */
  argsHash?: string;
}

export interface BatchDeps {
  /** Records one decision in its thread's ledger (the thread object's `decide`). */
  decide(threadId: string, input: DecisionInput): Promise<DecisionOutcome>;
  /** What every item's ledger entry carries besides the item: who decides, through which channel. */
  who: Pick<DecisionInput, "decidedBy" | "channel" | "delegations">;
  concurrency?: number;
}

/** Decides every item; the results come back in the items' order. */
export async function decideBatch(
  items: readonly BatchItem[],
  deps: BatchDeps,
): Promise<BatchResult[]> {
  const results: BatchResult[] = new Array(items.length);
  const byThread = new Map<string, number[]>();
  items.forEach((item, index) => {
    const threadId = threadOf(item.runId);
    if (!threadId) {
      results[index] = refused(item, 404, {
        code: "run_not_found",
        message: `no run ${item.runId}`,
      });
      return;
    }
    byThread.set(threadId, [...(byThread.get(threadId) ?? []), index]);
  });
  const queue = [...byThread.entries()];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [threadId, indexes] = next;
      for (const index of indexes) {
        const item = items[index] as BatchItem;
        results[index] = await decideItem(threadId, item, deps);
      }
    }
  };
  const workers = Math.max(1, Math.min(deps.concurrency ?? BATCH_CONCURRENCY, queue.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

async function decideItem(
  threadId: string,
  item: BatchItem,
  deps: BatchDeps,
): Promise<BatchResult> {
  let outcome: DecisionOutcome;
  try {
    outcome = await deps.decide(threadId, {
      runId: item.runId,
      requestId: item.requestId,
      decision: item.decision,
      ...(item.decision !== "approve" && item.reason !== undefined ? { reason: item.reason } : {}),
      ...(item.decision === "approve" && item.argsHash !== undefined
        ? { argsHash: item.argsHash }
        : {}),
      ...deps.who,
    });
  } catch (error) {
    // This item's thread failed (a configuration mistake, a broken object): the others go on.
    return error instanceof ConfigError
      ? refused(item, 500, { code: "config_error", message: error.message })
      : refused(item, 500, {
          code: "internal_error",
          message: `not recorded: ${errorMessage(error)}`,
        });
  }
  const counts =
    outcome.votes === undefined ? {} : { votes: outcome.votes, needed: outcome.needed };
  if (outcome.ok) {
    return {
      runId: item.runId,
      requestId: item.requestId,
      status: decisionStatus(outcome),
      duplicate: outcome.duplicate,
      ...counts,
    };
  }
  return {
    ...refused(item, decisionStatus(outcome), { code: outcome.code, message: outcome.message }),
    ...counts,
    ...(outcome.current ? { argsHash: outcome.current.argsHash } : {}),
  };
}

function refused(
  item: BatchItem,
  status: number,
  why: { code: string; message: string },
): BatchResult {
  return { runId: item.runId, requestId: item.requestId, status, ...why };
}
