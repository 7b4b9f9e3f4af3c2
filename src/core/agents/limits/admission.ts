/**
 * Budget admission (issue 37, item 5): a model call under a `maxTokens` or `maxTurns` pool
 * starts only once the pool can pay for it, counting the calls already in flight. Without
 * it, a hundred children started in one turn all pass the budget walk before any of them
 * has spent a token, and a tree with `maxTokens: 300` spends thirty times that.
 *
 * Each call in flight holds back what it is expected to cost at every level of its chain
 * that has a pool: one turn, and for tokens the largest call its agent has made so far.
 * A call whose agent has not made one yet, or that does not fit beside the reserved ones,
 * waits until it would be alone at that level; alone, it is admitted (the budget walk after
 * admission still stops it if the pool is spent). So a pool is never exceeded by more than
 * one model call's worth: the one call that started with something left — as long as a
 * call costs no more than the largest its agent made before (a transcript that grows
 * costs a little more each turn; docs/agents.md says so).
 *
 * `maxTurns` needs no estimate (a call is one turn) and is never exceeded. `maxToolCalls`
 * is not reserved: it is known only once the model has answered.
 *
 * Waiters are served first come, first served: a release re-checks the queue from its head
 * and stops at the first that still does not fit, so a release costs O(chain depth) for the
 * calls it admits, never a scan of every waiter.
 */
import { RunAbortedError } from "../../errors";
import type { BudgetLevel } from "./budget";

/** A started call's hold on its levels: `release` once its spend is in the ledger. */
export interface Ticket {
  /** True when the call had to wait for others to finish (their spend may have used the pool up). */
  readonly waited: boolean;
  /** `tokens`: what the call spent, when known (it teaches the estimate for its agent). */
  release(tokens?: number): void;
}

export interface AdmitRequest {
  /** Whose call: estimates are kept per agent. */
  agent: string;
  /** The chain as the budget walk reads it now (spend included), nearest first. */
  levels: () => BudgetLevel[];
  signal?: AbortSignal | undefined;
}

export interface Admission {
  admit(request: AdmitRequest): Promise<Ticket>;
  /** Calls admitted and not yet released, per level id (for tests and views). */
  inFlight(level: string): number;
}

interface Hold {
  calls: number;
  tokens: number;
}

interface Waiter {
  request: AdmitRequest;
  grant: (ticket: Ticket) => void;
}

export function budgetAdmission(): Admission {
  const holds = new Map<string, Hold>();
  const largest = new Map<string, number>();
  const queue: Waiter[] = [];

  const holdOf = (id: string): Hold => {
    let hold = holds.get(id);
    if (!hold) {
      hold = { calls: 0, tokens: 0 };
      holds.set(id, hold);
    }
    return hold;
  };

  /** The levels this call would hold, or undefined when it must wait. */
  const fits = (
    request: AdmitRequest,
    levels = request.levels().filter(hasPool),
  ): BudgetLevel[] | undefined => {
    const estimate = largest.get(request.agent);
    for (const level of levels) {
      const hold = holds.get(level.id);
      if (!hold || hold.calls === 0) {
        continue; // alone at this level: admitted; the walk after admission decides
      }
      const { maxTokens, maxTurns } = level.budget;
      if (maxTurns !== undefined && level.tree.turns + hold.calls + 1 > maxTurns) {
        return undefined;
      }
      if (maxTokens !== undefined) {
        if (estimate === undefined) {
          return undefined;
        }
        if (level.tree.usage.totalTokens + hold.tokens + estimate > maxTokens) {
          return undefined;
        }
      }
    }
    return levels;
  };

  const take = (request: AdmitRequest, levels: BudgetLevel[], waited: boolean): Ticket => {
    const estimate = largest.get(request.agent) ?? 0;
    const ids = levels.map((level) => level.id);
    for (const id of ids) {
      const hold = holdOf(id);
      hold.calls += 1;
      hold.tokens += estimate;
    }
    let released = false;
    return {
      waited,
      release(tokens) {
        if (released) {
          return;
        }
        released = true;
        if (tokens !== undefined && tokens > (largest.get(request.agent) ?? 0)) {
          largest.set(request.agent, tokens);
        }
        for (const id of ids) {
          const hold = holdOf(id);
          hold.calls -= 1;
          hold.tokens -= estimate;
        }
        serve();
      },
    };
  };

  const serve = () => {
    while (queue.length > 0) {
      const head = queue[0] as Waiter;
      const levels = fits(head.request);
      if (!levels) {
        return;
      }
      queue.shift();
      head.grant(take(head.request, levels, true));
    }
  };

  return {
    admit(request) {
      request.signal?.throwIfAborted();
      const pooled = request.levels().filter(hasPool);
      // No pool on the chain: nothing to reserve. Else first come, first served.
      const levels = pooled.length === 0 || queue.length === 0 ? fits(request, pooled) : undefined;
      if (levels) {
        return Promise.resolve(take(request, levels, false));
      }
      return new Promise<Ticket>((resolve, reject) => {
        const signal = request.signal;
        const onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index >= 0) {
            queue.splice(index, 1);
          }
          reject(new RunAbortedError("run aborted", signal?.reason));
          serve(); // the head may have been the one that blocked the others
        };
        const waiter: Waiter = {
          request,
          grant: (ticket) => {
            signal?.removeEventListener("abort", onAbort);
            resolve(ticket);
          },
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(waiter);
      });
    },
    inFlight: (level) => holds.get(level)?.calls ?? 0,
  };
}

const hasPool = (level: BudgetLevel) =>
  level.budget.maxTokens !== undefined || level.budget.maxTurns !== undefined;

/**
 * One handle's model calls through the admission, as the loop's `limitBefore`: the call is
 * admitted, then `stop` (the budget walk) decides whether it may still run; the hold is
 * released by `spent` once the call's spend is in the ledger (the checkpoint after the
 * model's reply), or by `release` when the run ends. `walkAlways: false` (the kernel, which
 * walks at turn boundaries) walks only after a wait.
 */
export function admittedCalls(
  admission: Admission,
  handle: {
    agent: string;
    levels: () => BudgetLevel[];
    stop: () => string | undefined;
    walkAlways: boolean;
    signal?: () => AbortSignal | undefined;
  },
) {
  let ticket: Ticket | undefined;
  let mark = { turns: 0, tokens: 0 };
  const release = (tokens?: number) => {
    const held = ticket;
    ticket = undefined;
    held?.release(tokens);
  };
  return {
    async limitBefore(state: {
      turns: number;
      usage: { totalTokens: number };
    }): Promise<string | undefined> {
      release();
      if (handle.walkAlways) {
        const before = handle.stop();
        if (before) {
          return before;
        }
      }
      const admitted = await admission.admit({
        agent: handle.agent,
        levels: handle.levels,
        signal: handle.signal?.(),
      });
      ticket = admitted;
      if (handle.walkAlways || admitted.waited) {
        const after = handle.stop();
        if (after) {
          release();
          return after;
        }
      }
      mark = { turns: state.turns, tokens: state.usage.totalTokens };
      return undefined;
    },
    /** At a checkpoint: the admitted call has answered, its spend is counted. */
    spent(state: { turns: number; usage: { totalTokens: number } }): void {
      if (ticket && state.turns > mark.turns) {
        release(state.usage.totalTokens - mark.tokens);
      }
    },
    release: () => release(),
  };
}
