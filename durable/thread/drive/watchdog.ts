/**
 * The watchdog refreshed as a drive makes progress (issue 26). While a run drives, the
 * thread's alarm stays a few seconds ahead of its last progress (WATCHDOG_MS): a process
 * that dies mid-turn leaves an alarm that fires within that time of its last step, and a
 * restarted object resumes the run from its last checkpoint then. Each progress (an event
 * of the run other than a text delta: a tool call, a result, a suspension, a resume) moves
 * the alarm to `armAlarm`'s exact earliest time again; refreshes never overlap, and one
 * asked for while another is in flight runs once after it.
 *
 * A long step with no progress (a slow model reply, a slow tool) lets the alarm fire while
 * the drive still runs in this object: the alarm sees the drive lock held, does not wait
 * for it, and arms the watchdog again (on-alarm.ts), so it costs one short alarm per
 * WATCHDOG_MS. When the drive ends, `settled` lets the last refresh land before the drive
 * arms the alarm for what is left (nothing, when every run is idle).
 */
import { armAlarm } from "../alarms";
import type { ThreadContext } from "../context";

export interface ProgressWatchdog {
  /** The drive made progress: move the watchdog (in the background, coalesced). */
  progress(): void;
  /** Resolves once no refresh is in flight. */
  settled(): Promise<void>;
}

export function progressWatchdog(t: ThreadContext): ProgressWatchdog {
  let running: Promise<void> | undefined;
  let again = false;
  const refresh = async () => {
    do {
      again = false;
      // After the current synchronous step (often a storage transaction) has committed.
      await Promise.resolve();
      await armAlarm(t);
    } while (again);
  };
  return {
    progress() {
      if (running) {
        again = true;
        return;
      }
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
