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
export function startTimers(votes: VoteStore, run: RunRow, request: Request, now: number): void {
  const rules = rulesOf(request);
  if (!rules) {
    return;
  }
  votes.startTimers(run.run_id, request, {
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
      ...(t.next_remind_at === null ? [] : [t.next_remind_at]),
      ...(t.escalate_at !== null && t.escalated_at === null ? [t.escalate_at] : []),
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
    const run = deps.store.run(timer.run_id);
    if (!run || !isOpen(deps, run, timer.request_id)) {
      deps.votes.stopTimers(timer.request_id);
      continue;
    }
    if (timer.next_remind_at !== null && timer.next_remind_at <= now) {
      await remind(deps, run, timer, now);
    }
    if (timer.escalate_at !== null && timer.escalated_at === null && timer.escalate_at <= now) {
      deps.votes.escalated(timer.request_id, now);
      if (timer.escalate_to) {
        deps.escalatedTo?.(run, timer.request_id, timer.escalate_to); // no await: one commit
      }
      deps.record(run.run_id, "escalated", { requestId: timer.request_id, to: timer.escalate_to });
      await notify(deps, run, timer.request_id, { escalated: true });
    }
  }
}

async function remind(deps: TimerDeps, run: RunRow, timer: ApprovalRow, now: number) {
  const n = timer.reminders + 1;
  const every = timer.remind_every ?? 0;
  let next: number | null = (timer.next_remind_at ?? now) + every;
  // Woken late (evicted for a while)? One reminder now, the next on the original rhythm.
  while (every > 0 && next !== null && next <= now) {
    next += every;
  }
  if (every <= 0 || (run.expires_at !== null && next !== null && next >= run.expires_at)) {
    next = null;
  }
  deps.votes.reminded(timer.request_id, n, next);
  deps.record(run.run_id, "reminded", { requestId: timer.request_id, n });
  await notify(deps, run, timer.request_id, { reminder: n });
  await deps.reminded?.(run, timer.request_id, n);
}

async function notify(
  deps: TimerDeps,
  run: RunRow,
  requestId: string,
  extra: Pick<NotifyMessage, "reminder" | "escalated">,
): Promise<void> {
  if (run.callback_url) {
    await deps.notify({ threadId: run.thread_id, runId: run.run_id, requestId, ...extra });
  }
}

function isOpen(deps: TimerDeps, run: RunRow, requestId: string): boolean {
  return (
    run.status === "pending" &&
    !deps.store.decision(requestId) &&
    (run.expires_at === null || run.expires_at > deps.now()) &&
    openRequests(deps.store, run).some((r) => r.id === requestId)
  );
}
