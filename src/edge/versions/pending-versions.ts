/**
 * How many runs wait under each agent version (`pendingByVersion` in `GET /v1/agents`): a
 * projection kept in the receipts store's object, fed by each thread's outbox after its
 * deliveries (durable/outbox/pending-version.ts), so the read never scans a thread. A thread
 * has at most one active run, so it counts at most once: each thread states what it waits
 * under (or that it waits on nothing), numbered, and a state older than the one held is ignored.
 */
import type { ReceiptSql } from "../receipts/sql";

/** One thread's state: the agent and version its pending run suspended under, or nulls. */
export interface PendingVersionState {
  threadId: string;
  agent: string | null;
  version: string | null;
  /** The sending time: a late delivery never undoes a newer one, a repeat changes nothing. */
  seq: number;
}

/** `{ <agent>: { <version>: <runs> } }` */
export type PendingByVersion = Record<string, Record<string, number>>;

export class PendingVersionStore {
  constructor(private readonly sql: ReceiptSql) {
    sql`CREATE TABLE IF NOT EXISTS pending_versions (thread_id TEXT PRIMARY KEY, agent TEXT, version TEXT, seq INTEGER NOT NULL)`;
    sql`CREATE INDEX IF NOT EXISTS pending_versions_agent ON pending_versions (agent, version)`;
  }

  put(state: PendingVersionState): void {
    this.sql`INSERT INTO pending_versions (thread_id, agent, version, seq)
      VALUES (${state.threadId}, ${state.agent}, ${state.version}, ${state.seq})
      ON CONFLICT (thread_id) DO UPDATE SET agent = excluded.agent, version = excluded.version,
        seq = excluded.seq WHERE excluded.seq > pending_versions.seq`;
  }

  /** One indexed GROUP BY over the threads that wait (the index holds agent and version). */
  byAgent(): PendingByVersion {
    // Counted in Maps: an agent or version named like an Object member (`constructor`) stays
    // a plain key; Object.fromEntries makes own properties (RPC clones plain objects only).
    const counts = new Map<string, Map<string, number>>();
    const rows = this.sql<{ agent: string; version: string; runs: number }>`
      SELECT agent, version, COUNT(*) AS runs FROM pending_versions
      WHERE agent IS NOT NULL GROUP BY agent, version`;
    for (const row of rows) {
      const agent = counts.get(row.agent) ?? new Map<string, number>();
      agent.set(row.version, row.runs);
      counts.set(row.agent, agent);
    }
    return Object.fromEntries(
      [...counts].map(([agent, versions]) => [agent, Object.fromEntries(versions)]),
    );
  }
}
