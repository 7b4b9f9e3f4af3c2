/**
 * Driving a thread's runs: what the queue consumer and the alarm ask for. Under the drive
 * lock, each run with work gets one unit at a time (`driveOnce`: a turn to its checkpoint,
 * or one applied decision), the watchdog armed before each and moved on at each of its steps
 * (watchdog.ts), until no run progresses.
 */
import { errorMessage } from "../../../src/core/errors";
import type { RunRow } from "../../storage/run-store";
import type { OutboxDelivery } from "../../outbox/delivery";
import { driveOnce, waitsForADecision, type DriverDeps } from "./driver";
import { DEFAULT_ELICITATION_WINDOW_MS } from "./elicitation";
import { armAlarm, WATCHDOG_MS } from "../alarms";
import { progressWatchdog } from "./watchdog";
import { halted } from "../halted";
import { reask } from "../../versions/reask";
import { keepDisagreement } from "../../policy/keep-disagreement";
import { runUndos } from "../../undo/run-undos";

/** How long an A2A call polls a working remote task inline before suspending (remote_task). */
export const DEFAULT_REMOTE_TASK_WINDOW_MS = 5_000;
import type { ThreadContext } from "../context";

/**
 * Units of work (turns to a checkpoint, applied decisions) one drive call does before it
 * lets go. Each unit is bounded (maxTurns, one decision per request), so this only
 * matters if stored state keeps producing work; the rest is left to the next queue
 * delivery or the alarm (the watchdog, then the closing round's arming), so one call never
 * holds the object forever.
 */
export const MAX_WORK_PER_DRIVE = 100;

/** Drives `only` (or every run with work) under the object's drive lock. */
export function drive(t: ThreadContext, delivery: OutboxDelivery, only?: string): Promise<void> {
  return t.lock.run(
    () => driveAll(t, delivery, only),
    (p) => t.state.waitUntil(p),
  );
}

async function driveAll(t: ThreadContext, delivery: OutboxDelivery, only?: string) {
  const watchdog = progressWatchdog(t);
  const base = driverDeps(t);
  const deps: DriverDeps = {
    ...base,
    record: (runId, type, data) => {
      base.record(runId, type, data);
      if (type !== "text") {
        watchdog.progress(); // a step done: the watchdog moves on (text deltas are not steps)
      }
    },
  };
  let work = 0;
  let drove = false;
  const touched = new Set<string>();
  for (;;) {
    const runs = t.store.runsWithWork().filter((r) => !only || r.runId === only);
    let progressed = false;
    for (const run of runs) {
      if (waitsForADecision(deps, run)) {
        continue; // nothing to drive: no watchdog, no round (issue 46: every resume message)
      }
      drove = true;
      await armAlarm(t, Date.now() + WATCHDOG_MS);
      if (await driveRun(t, deps, run)) {
        progressed = true;
        touched.add(run.runId);
        work += 1;
      }
    }
    if (!progressed) {
      break;
    }
    if (work >= MAX_WORK_PER_DRIVE) {
      t.report(new Error(`drive stopped after ${work} units of work; the alarm carries on`), {
        source: "driver",
        threadId: runs[0]?.threadId,
        recoverable: true,
      });
      break;
    }
  }
  // Undos (../../undo/): an agent's automatic one for a run that just failed, and every unfinished one.
  const undid = await runUndos(t, { touched, record: deps.record, ...(only ? { only } : {}) });
  await watchdog.settled(); // a refresh landing after the round's arming would re-arm a finished run
  if (!drove && !undid) {
    // Nothing to drive (a resume message for a run its decision already drove): nothing was
    // written or armed, so there is nothing to deliver or arm either (issue 46: a full round
    // and arming per cycle). What an earlier round failed to deliver, its alarm retries.
    return;
  }
  // The round arms the alarm for what is left once its deliveries are done. Until then the
  // alarm is the watchdog armed above (at most WATCHDOG_MS away): a process dying in between
  // meets an alarm that is early, never late.
  delivery.soon({ arm: true });
}

/**
 * One unit of work for one run. A failure the driver could not turn into a failed run
 * (storage, a queue send) is recorded as a recoverable `error` event, reported, and
 * rethrown, so the queue redelivers and the watchdog alarm (armed above) retries it.
 */
async function driveRun(t: ThreadContext, deps: DriverDeps, run: RunRow): Promise<boolean> {
  try {
    return await driveOnce(deps, run.runId, t.abort.signal());
  } catch (error) {
    const ids = { runId: run.runId, threadId: run.threadId };
    try {
      t.events.record(run.runId, "error", {
        message: `driver failed, retrying: ${errorMessage(error)}`,
        recoverable: true,
      });
    } finally {
      t.report(error, { source: "driver", ...ids, recoverable: true });
    }
    throw error;
  }
}

/** What the driver needs from its object, as one typed context. */
export function driverDeps(t: ThreadContext): DriverDeps {
  return {
    store: t.store,
    agents: t.agents,
    config: t.config(),
    env: t.env,
    ...(t.options.fetch ? { fetch: t.options.fetch } : {}),
    now: () => Date.now(),
    transaction: (fn) => t.state.storage.transactionSync(fn),
    record: (runId, type, data) => t.events.record(runId, type, data),
    report: t.report,
    halted: (run, request) => halted(t, run, request),
    waiters: t.waiters,
    parked: (waiting) => t.lock.park(waiting),
    elicitationWindowMs: t.options.elicitationWindowMs ?? DEFAULT_ELICITATION_WINDOW_MS,
    remoteTaskWindowMs: t.options.remoteTaskWindowMs ?? DEFAULT_REMOTE_TASK_WINDOW_MS,
    inbox: t.inbox,
    handles: t.handles,
    appendReceipt: (draft, at) => t.receipts.receipts?.append(draft, at),
    reask: (plan) => reask(t, plan),
    waitUntil: (promise) => t.state.waitUntil(promise),
    directory: () => t.directory(),
    keepDisagreement: (entry) =>
      keepDisagreement(
        { env: t.env, report: t.report, waitUntil: (p) => t.state.waitUntil(p) },
        entry,
      ),
  };
}
