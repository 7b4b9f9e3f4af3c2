/**
 * The thread's side of `pendingByVersion` (src/edge/versions/pending-versions.ts): after each
 * delivery round, the agent and version its pending run suspended under (or none) is compared
 * with the last state it numbered; a change gets the next number, and a state not yet
 * acknowledged is sent to the receipts store. Derived from the runs at delivery time, so no
 * write path has to remember it; what a failed round misses, the next delivery sends.
 */
import { UNRECORDED_VERSION } from "../receipts/record";
import type { Sql } from "../storage/sql";
import type { PendingVersionState } from "../../src/edge/versions/pending-versions";

interface StateRow {
  agent: string | null;
  version: string | null;
  seq: number;
  sent: number;
  [key: string]: SqlStorageValue;
}

export class PendingVersionOutbox {
  constructor(
    private readonly sql: Sql,
    private readonly threadId: () => string | undefined,
  ) {}

  /** The state to send, numbered (and stored) when it changed; undefined when the store has it. */
  due(): PendingVersionState | undefined {
    const threadId = this.threadId();
    if (threadId === undefined) {
      return undefined; // an object with no run waits on nothing
    }
    const run = this.sql.one<{ agent: string; agent_version: string | null }>`
      SELECT agent, agent_version FROM runs WHERE status = 'pending' ORDER BY created_at LIMIT 1`;
    const agent = run?.agent ?? null;
    const version = run ? (run.agent_version ?? UNRECORDED_VERSION) : null;
    const last = this.sql.one<StateRow>`SELECT agent, version, seq, sent FROM pending_version`;
    if (last && last.agent === agent && last.version === version) {
      return last.sent ? undefined : { threadId, agent, version, seq: last.seq };
    }
    if (!last && agent === null) {
      return undefined; // never waited: the store counts nothing for this thread
    }
    const seq = (last?.seq ?? 0) + 1;
    this.sql`INSERT INTO pending_version (id, agent, version, seq, sent)
      VALUES (1, ${agent}, ${version}, ${seq}, 0)
      ON CONFLICT (id) DO UPDATE SET agent = excluded.agent, version = excluded.version,
        seq = excluded.seq, sent = 0`;
    return { threadId, agent, version, seq };
  }

  sent(seq: number): void {
    this.sql`UPDATE pending_version SET sent = 1 WHERE seq = ${seq}`;
  }
}
