/**
 * The one clock of an agent runtime: every timeout, deadline and wall-time budget reads it,
 * so tests (and the SPEC's fixtures) run on virtual time.
 */
export interface Clock {
  now(): number;
  /** Calls `fire` once after `ms`; the returned function cancels it. */
  setTimer(ms: number, fire: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fire) {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};

export interface VirtualClock extends Clock {
  /** Moves time forward, firing due timers in deadline order (ties in the order they were set). */
  advance(ms: number): void;
  /** Timers not yet fired. */
  pending(): number;
}

/**
 * A clock that moves only when told to.
 * @example const clock = virtualClock(); const rt = createAgentRuntime({ clock, … }); clock.advance(60_000);
 */
export function virtualClock(start = 0): VirtualClock {
  let now = start;
  let sequence = 0;
  const timers: Array<{ at: number; seq: number; fire: () => void }> = [];
  return {
    now: () => now,
    setTimer(ms, fire) {
      const timer = { at: now + Math.max(0, ms), seq: sequence++, fire };
      timers.push(timer);
      return () => {
        const index = timers.indexOf(timer);
        if (index >= 0) {
          timers.splice(index, 1);
        }
      };
    },
    advance(ms) {
      const until = now + ms;
      while (true) {
        timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
        const next = timers[0];
        if (!next || next.at > until) {
          break;
        }
        timers.shift();
        now = next.at;
        next.fire();
      }
      now = until;
    },
    pending: () => timers.length,
  };
}
