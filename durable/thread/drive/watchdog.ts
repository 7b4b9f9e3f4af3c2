/**
 * The watchdog refreshed as a drive makes progress (issue 26). While a run drives, the
 * thread's alarm stays a few seconds ahead of its last progress (WATCHDOG_MS): a process
 * that dies mid-turn leaves an alarm that fires within that time of its last step, and a
 * restarted object resumes the run from its last checkpoint then. Each progress (an event
 * of the run other than a text delta: a tool call, a result, a suspension, a resume) may move
 * the alarm to `armAlarm`'s exact earliest time again; refreshes never overlap.
 *
 * A progress within WATCHDOG_MOVE_MS of the last move leaves the alarm where it is (issue 46:
 * moving it at every step was ≈ 10 % of an approval cycle's CPU, a timer read of every source
 * and a `setAlarm` each time). That costs no recovery time: every arming while a run is
 * running puts the alarm at most WATCHDOG_MS after the moment it was made, which is never
 * later than the last progress plus WATCHDOG_MS. What it can cost is one short alarm: a
 * drive that goes more than WATCHDOG_MS − WATCHDOG_MOVE_MS without progress may see the alarm
 * fire while it still runs — the alarm sees the drive lock held, does not wait for it, and
 * arms the watchdog again (on-alarm.ts), as it always did for a long model reply or tool.
 * When the drive ends, `settled` lets the last refresh land before the drive hands the arming
 * to its closing delivery round, which arms the alarm for what is left (nothing, when every run
 * is idle).
 */
import { armAlarm, WATCHDOG_MS } from "../alarms";
import type { ThreadContext } from "../context";

/** How long after the watchdog last moved a progress leaves it be. */
export const WATCHDOG_MOVE_MS = WATCHDOG_MS / 2;

export interface ProgressWatchdog {
  /** The drive made progress: move the watchdog (in the background, at most every WATCHDOG_MOVE_MS). */
  progress(): void;
  /** Resolves once no refresh is in flight. */
  settled(): Promise<void>;
}

/** Made as a drive starts, right before it arms the watchdog (drive/index.ts): that arming is the first move. */
export function progressWatchdog(t: ThreadContext): ProgressWatchdog {
  let running: Promise<void> | undefined;
  let movedAt = Date.now();
  const refresh = async () => {
    // After the current synchronous step (often a storage transaction) has committed.
    await Promise.resolve();
    await armAlarm(t);
  };
  return {
    progress() {
      // A refresh in flight reads the clock as it arms: it moves the alarm past this progress too.
      if (running || Date.now() - movedAt < WATCHDOG_MOVE_MS) {
        return;
      }
      movedAt = Date.now();
      running = refresh()
        .catch((error: unknown) => t.report(error, { source: "driver", recoverable: true }))
        .finally(() => {
          running = undefined;
        });
      t.state.waitUntil(running);
    },
    async settled() {
      while (running) {
        await running;
      }
    },
  };
}
