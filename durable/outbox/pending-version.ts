/**
 * The thread's side of `pendingByVersion` (src/edge/versions/pending-versions.ts): after each
 * delivery round, the agent and version its pending run suspended under (or none) goes to the
 * receipts store when it differs from what this object last sent. Derived from the runs at
 * delivery time, so no write path has to remember it, and kept in memory only: a new object
 * (or a failed send) sends once more, which the store takes as a repeat. Numbered by the clock
 * at sending: deliveries of one object run one at a time, so a later state has a later number.
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

  /** Sends the thread's state with `send` unless it was sent already. */
  async deliver(send: (state: PendingVersionState) => Promise<void>): Promise<void> {
    const threadId = this.threadId();
    if (threadId === undefined) {
      return; // an object with no run waits on nothing
    }
    const run = this.sql.one<{ agent: string; agentVersion: string | null }>`
      SELECT agent, agent_version FROM runs WHERE status = 'pending' LIMIT 1`;
    const state = {
      threadId,
      agent: run?.agent ?? null,
      version: run ? (run.agentVersion ?? UNRECORDED_VERSION) : null,
    };
    const key = JSON.stringify(state);
    if (key !== this.#sent) {
      await send({ ...state, seq: Date.now() });
      this.#sent = key;
    }
  }
}
