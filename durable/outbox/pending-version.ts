/**
 * The thread's side of `pendingByVersion` (src/edge/versions/pending-versions.ts): after each
 * delivery round, the agent and version its pending run suspended under (or none) goes to the
 * receipts store when it differs from what this object last sent. Derived from the runs at
 * delivery time, so no write path has to remember it, and kept in memory only: a new object
 * (or a failed send) sends once more, which the store takes as a repeat. Numbered by the clock
 * at sending: deliveries of one object run one at a time, so a later state has a later number.
 * A round that also delivers receipts carries it on their `accept` call (receipt-delivery.ts).
 */
import { UNRECORDED_VERSION } from "../receipts/record";
import type { Sql } from "../storage/sql";
import type { PendingVersionState } from "../../src/edge/versions/pending-versions";

export class PendingVersionOutbox {
  #sent: string | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly threadId: () => string | undefined,
  ) {}

  /**
   * The thread's state to send now, numbered by the clock; undefined when it was sent already
   * (or the object has no run, so waits on nothing). Call `sent` once the store took it.
   */
  due(): PendingVersionState | undefined {
    const threadId = this.threadId();
    if (threadId === undefined) {
      return undefined;
    }
    const run = this.sql.one<{ agent: string; agentVersion: string | null }>`
      SELECT agent, agent_version FROM runs WHERE status = 'pending' LIMIT 1`;
    const state = {
      threadId,
      agent: run?.agent ?? null,
      version: run ? (run.agentVersion ?? UNRECORDED_VERSION) : null,
    };
    return keyOf(state) === this.#sent ? undefined : { ...state, seq: Date.now() };
  }

  /** The store has `state`: the same state is not sent again. */
  sent(state: PendingVersionState): void {
    this.#sent = keyOf(state);
  }
}

function keyOf({ threadId, agent, version }: Omit<PendingVersionState, "seq">): string {
  return JSON.stringify({ threadId, agent, version });
}
