/**
 * Reminders and escalation of requests with rules (docs/architecture.md §6). The thread object's
 * one alarm calls `fireTimers` when the earliest of its timers is due; each timer is a
 * row in `approvals`. A timer only fires while its request is still open and undecided,
 * so nothing is sent after a decision, an expiry or a cancel.
 */
import type { Request } from "../../src/core/types";
import { parseDuration } from "../../src/core/approvers/duration";
import { rulesOf } from "../../src/core/approvers/rules";
import type { NotifyMessage } from "../../src/edge/protocol";
import { openRequests } from "../storage/open-requests";
import type { RunRow, RunStore } from "../storage/run-store";
import type { ApprovalRow, VoteStore } from "../storage/vote-store";

export interface TimerDeps {
  store: RunStore;
  votes: VoteStore;
  now(): number;
  record(runId: string, type: string, data: unknown): void;
  /** Queues a notification (only for runs with a callbackUrl). */
  notify(message: NotifyMessage): Promise<void>;
  /** The approvals inbox: an escalation changes the request (synchronous: same commit). */
  escalatedTo?(run: RunRow, requestId: string, to: string): void;
  /** Slack: a reminder is posted in the request message's thread. */
  reminded?(run: RunRow, requestId: string, n: number): Promise<void>;
}

/** A request was surfaced to its approvers: start its clocks (a request without rules has none). */
export function startTimers(
  votes: VoteStore,
  { run, request }: { run: RunRow; request: Request },
  now: number,
): void {
  const rules = rulesOf(request);
  if (!rules) {
    return;
  }
  votes.startTimers(run.runId, request, {
    now,
    ...(rules.remindEvery === undefined ? {} : { remindEvery: parseDuration(rules.remindEvery) }),
    ...(rules.escalate
      ? { escalateAfter: parseDuration(rules.escalate.after), escalateTo: rules.escalate.to }
      : {}),
  });
}

/** When the earliest armed timer is due, or undefined. */
export function nextTimerAt(votes: VoteStore): number | undefined {
  const times = votes
    .armedTimers()
    .flatMap((t) => [
      ...(t.nextRemindAt === null ? [] : [t.nextRemindAt]),
      ...(t.escalateAt !== null && t.escalatedAt === null ? [t.escalateAt] : []),
    ]);
  return times.length ? Math.min(...times) : undefined;
}

/**
 * Fires every due timer once: records the SSE event and queues the notification. The
 * writes of one timer commit before its message is queued; a timer whose request is
 * settled is disarmed instead.
 */
export async function fireTimers(deps: TimerDeps): Promise<void> {
  const now = deps.now();
  for (const timer of deps.votes.armedTimers()) {
    const run = deps.store.run(timer.runId);
    if (!run || !isOpen(deps, run, timer.requestId)) {
      deps.votes.stopTimers(timer.requestId);
      continue;
    }
    if (timer.nextRemindAt !== null && timer.nextRemindAt <= now) {
      await remind(deps, run, { timer, now });
    }
    if (timer.escalateAt !== null && timer.escalatedAt === null && timer.escalateAt <= now) {
      deps.votes.escalated(timer.requestId, now);
      if (timer.escalateTo) {
        deps.escalatedTo?.(run, timer.requestId, timer.escalateTo); // no await: one commit
      }
      deps.record(run.runId, "escalated", { requestId: timer.requestId, to: timer.escalateTo });
      await notify(deps, run, { requestId: timer.requestId, escalated: true });
    }
  }
}

async function remind(
  deps: TimerDeps,
  run: RunRow,
  { timer, now }: { timer: ApprovalRow; now: number },
) {
  const n = timer.reminders + 1;
  const every = timer.remindEvery ?? 0;
  let next: number | null = (timer.nextRemindAt ?? now) + every;
  // Woken late (evicted for a while)? One reminder now, the next on the original rhythm.
  while (every > 0 && next !== null && next <= now) {
    next += every;
  }
  if (every <= 0 || (run.expiresAt !== null && next !== null && next >= run.expiresAt)) {
    next = null;
  }
  deps.votes.reminded(timer.requestId, n, next);
  deps.record(run.runId, "reminded", { requestId: timer.requestId, n });
  await notify(deps, run, { requestId: timer.requestId, reminder: n });
  await deps.reminded?.(run, timer.requestId, n);
}

async function notify(
  deps: TimerDeps,
  run: RunRow,
  message: Pick<NotifyMessage, "requestId" | "reminder" | "escalated">,
): Promise<void> {
  if (run.callbackUrl) {
    await deps.notify({ threadId: run.threadId, runId: run.runId, ...message });
  }
}

function isOpen(deps: TimerDeps, run: RunRow, requestId: string): boolean {
  return (
    run.status === "pending" &&
    !deps.store.decision(requestId) &&
    (run.expiresAt === null || run.expiresAt > deps.now()) &&
    openRequests(deps.store, run).some((r) => r.id === requestId)
  );
}
