/**
 * One alarm per thread object serves every timer (docs/architecture.md §4 "Expire, remind,
 * escalate"): the watchdog of a running run, the backstop of a recorded decision, request
 * expiries, reminders and escalations, and the outboxes' retries. `nextAlarmAt` picks the
 * earliest from what storage holds; `armAlarm` sets it.
 */
import type { RunRow } from "../storage/run-store";
import { nextTimerAt } from "./reminders";
import type { ThreadContext } from "./context";
import { heldUntil } from "../undo/window";

/**
 * How long a running run may go without progress before the watchdog alarm retries it. The
 * drive moves it on at each progress (watchdog.ts), so a process that dies mid-turn is
 * resumed this soon after its last step; an alarm that finds the drive alive costs nothing.
 */
export const WATCHDOG_MS = 5_000;
/** A recorded decision whose drive and queue message never come is applied by this backstop alarm. */
export const DECISION_BACKSTOP_MS = WATCHDOG_MS;

/** What the alarm may have to do, as storage says. */
export interface AlarmSources {
  now: number;
  outboxRetry?: number;
  notifyRetry?: number;
  timer?: number;
  /** When runs waiting on a remote A2A task poll it next. */
  remotePolls?: number[];
  runs: Array<{
    status: RunRow["status"];
    expiresAt: number | null;
    unapplied: boolean;
    /** The unapplied decision is an approval held in its undo window until then (../undo/window.ts). */
    heldUntil?: number;
  }>;
  /** An undo has steps left (durable/undo/): the watchdog carries it on after a crash. */
  undoing?: boolean;
}

/** The earliest time the alarm must fire, or undefined when nothing waits. Pure. */
export function nextAlarmAt(sources: AlarmSources): number | undefined {
  const { now } = sources;
  const times = [sources.outboxRetry, sources.notifyRetry, sources.timer].filter(
    (t): t is number => t !== undefined,
  );
  times.push(...(sources.remotePolls ?? []));
  if (sources.undoing) {
    times.push(now + WATCHDOG_MS);
  }
  for (const run of sources.runs) {
    if (run.status === "running") {
      times.push(now + WATCHDOG_MS);
    }
    if (run.status === "pending" && run.expiresAt !== null) {
      times.push(run.expiresAt);
    }
    if (run.unapplied) {
      times.push(Math.max(run.heldUntil ?? 0, now + DECISION_BACKSTOP_MS));
    }
  }
  return times.length === 0 ? undefined : Math.min(...times);
}

/**
 * Arms the alarm for the earliest timer. With `atLeast`, an earlier alarm already set is
 * kept (a drive only makes sure the watchdog is there); without, the alarm is moved to
 * exactly the earliest timer, or deleted when nothing waits.
 */
export async function armAlarm(t: ThreadContext, atLeast?: number): Promise<void> {
  if (atLeast !== undefined) {
    // Only making sure of an alarm by `atLeast` (a drive's start, a decision's backstop): one
    // already set by then is kept, and a later one (or none) is brought forward to
    // `atLeast`, without reading every timer (issue 46: these armings were a third of a
    // cycle's timer reads). Every writer of a timer arms for it, so no timer is due before
    // the alarm already set; one whose writer did not is served when this alarm fires, at
    // most `atLeast` from now, and the alarm is then armed exactly.
    const current = await t.state.storage.getAlarm();
    if (current === null || current > atLeast) {
      await t.state.storage.setAlarm(atLeast);
    }
    return;
  }
  const now = Date.now();
  const runs = t.store.runsWithWork();
  const next = nextAlarmAt({
    now,
    ...optional("outboxRetry", earliest(t.outbox.retryAt(now), t.receipts.retryAt())),
    ...optional("notifyRetry", t.notifications.retryAt()),
    ...optional("timer", earliest(nextTimerAt(t.votes), t.warnings.nextAt())),
    remotePolls: t.remoteWaits.dueTimes(runs, now),
    undoing: t.undo.unfinished().length > 0,
    runs: runs.map((run) => ({
      status: run.status,
      expiresAt: run.expiresAt,
      unapplied: hasUnapplied(t, run),
      ...held(t, run),
    })),
  });
  if (next === undefined) {
    return t.state.storage.deleteAlarm();
  }
  await t.state.storage.setAlarm(next);
}

/** The run's surfaced request has a decision that is not applied yet. */
function hasUnapplied(t: ThreadContext, run: RunRow): boolean {
  const request = run.pending ?? undefined;
  const decision = request && t.store.decision(request.id);
  return Boolean(decision && decision.appliedAt === null);
}

/** The end of the undo window of the run's unapplied approval, when it is held. */
function held(t: ThreadContext, run: RunRow): { heldUntil?: number } {
  const request = run.pending ?? undefined;
  const decision = request && t.store.decision(request.id);
  const until = decision && decision.appliedAt === null ? heldUntil(decision, request) : undefined;
  return until === undefined ? {} : { heldUntil: until };
}

function earliest(...times: Array<number | undefined>): number | undefined {
  const set = times.filter((time): time is number => time !== undefined);
  return set.length > 0 ? Math.min(...set) : undefined;
}

function optional<K extends string>(key: K, value: number | undefined) {
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<K, number>>;
}
