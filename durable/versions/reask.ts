/**
 * The approval asked again (issue 30 point 2): a suspended call whose arguments a newer deploy's
 * `onVersionChange` migrated, when the rule for the migrated arguments needs someone the stored
 * rule does not (src/edge/versions/version-check.ts `reask`). The approvers who were asked never
 * stand for the new rule, so the old request is superseded and the same call asks anew.
 *
 * One transaction: the ledger closes the old request (a `cancel` row on channel `version` and its
 * receipt, ../ledger/version-change.ts), the call's slot and, when it is the surfaced one, the
 * run take the new request (with a fresh expiry, and the version that asks it), the inbox shows
 * the old one cancelled and the new one open, the event log says `superseded` and `pending`, and
 * the new request's timers and callback notification are written. Only then are they sent (the
 * notify outbox, the inbox delivery): a process that dies after the commit leaves the outboxes to
 * the alarm, one that dies before it leaves the old request as it was.
 */
import { approvalTimeoutOf } from "../../src/edge/agent";
import type { Request } from "../../src/core/types";
import { supersedeRequest } from "../ledger/version-change";
import type { DecisionRow, RunRow, RunStore } from "../storage/run-store";
import { surfaceWrites } from "../thread/halted";
import type { ThreadContext } from "../thread/context";

/** What the version check asks instead of a request. */
export interface Reask {
  run: RunRow;
  /** The request superseded. */
  request: Request;
  /** The request the call asks instead (`data.supersedes` names the old one). */
  next: Request;
  /** Why (`agent_changed: the migrated arguments of … need other approvers`). */
  reason: string;
  /** The version now deployed, which asks `next`. */
  version: string;
  /**
   * The approval recorded before the deploy that the re-ask replaces (at apply time), or none
   * (a decision arriving: it is not recorded).
   */
  decided?: DecisionRow;
}

/**
 * Supersedes `plan.request` with `plan.next` and notifies the new request's approvers; false,
 * writing nothing, when the request changed while the check ran (decided, the run cancelled).
 * The caller arms the alarm afterwards (the new request's expiry and timers are in storage).
 * @example
 * await reask(t, { run, request, next: check.request, reason: check.reason, version });
 */
export async function reask(t: ThreadContext, plan: Reask): Promise<boolean> {
  const { request, next, reason, version } = plan;
  const agent = t.agents.get(plan.run.agent);
  if (!agent) {
    throw new Error(`agent ${plan.run.agent} is not deployed: nobody can ask ${next.id}`);
  }
  const now = Date.now();
  const expiresAt = next.expiresAt
    ? Date.parse(next.expiresAt)
    : now + approvalTimeoutOf(agent, t.env);
  const notify = t.state.storage.transactionSync(() => {
    const run = t.store.requireRun(plan.run.runId);
    if (!stillAsAsked(t.store, run, plan)) {
      return undefined;
    }
    const surfaced = run.pending?.id === request.id;
    const superseded = supersedeRequest(
      {
        store: t.store,
        votes: t.votes,
        appendReceipt: (draft, at) => t.receipts.receipts?.append(draft, at),
      },
      { run, request, next, reason, version, now },
    );
    const callId = replaceSlot(t.store, run.runId, { request, next });
    if (surfaced) {
      t.store.update(run.runId, { pending: next, expiresAt, agentVersion: version }, now);
    }
    const asked = t.store.requireRun(run.runId);
    t.inbox.settled(asked, request, superseded);
    t.events.record(run.runId, "superseded", { requestId: request.id, by: next.id, reason });
    t.events.record(run.runId, "pending", { request: next, id: callId });
    if (!surfaced) {
      return false; // a sibling of the surfaced call: surfaced (and notified) when its turn comes
    }
    t.inbox.surfaced(asked, next);
    return surfaceWrites(t, asked, next);
  });
  if (notify) {
    await t.sends.notifications();
  }
  return notify !== undefined;
}

/**
 * The run still waits, and the request is decided as when the check began (the check awaits):
 * not at all, or by the unapplied approval it replaces. A request that is neither goes to the
 * ledger as always, which answers it without asking again.
 */
function stillAsAsked(store: RunStore, run: RunRow, plan: Reask): boolean {
  const row = store.decision(plan.request.id);
  const asChecked = plan.decided
    ? row?.appliedAt === null && row.decidedAt === plan.decided.decidedAt
    : row === undefined;
  return asChecked && run.status === "pending";
}

/** The suspended call's placeholder now waits on `next` (as the kernel writes one); its call id. */
function replaceSlot(store: RunStore, runId: string, change: { request: Request; next: Request }) {
  const slots = store.slots(runId);
  const slot = slots.find((s) => s.pending?.id === change.request.id);
  if (!slot) {
    throw new Error(`run ${runId} has no call suspended on ${change.request.id}`);
  }
  const { next } = change;
  store.putSlots(
    runId,
    slots.map((s) =>
      s === slot ? { ...s, content: `pending: ${next.prompt}`, pending: next } : s,
    ),
  );
  return slot.toolCallId;
}
