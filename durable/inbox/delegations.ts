/**
 * The delegations directory's storage (issue 42; src/edge/delegations/rpc.ts says why it lives
 * in an `InboxObject`): one row per delegation, kept after it ends (`ended_at`) so a receipt's
 * `onBehalfOf` can be traced to the delegation that allowed it. The table is created on the
 * first write: an inbox object that never holds delegations has none.
 */
import type { ActiveDelegation } from "../../src/edge/protocol";
import type { Delegation } from "../../src/edge/delegations/rpc";
import type { Sql } from "../storage/sql";

interface DelegationRecord extends Record<string, SqlStorageValue> {
  id: string;
  fromMember: string;
  toMember: string;
  until: number;
  groups: string | null;
  createdAt: number;
  endedAt: number | null;
}

export class DelegationStore {
  #ready = false;

  constructor(private readonly sql: Sql) {}

  #migrate(): void {
    if (this.#ready) {
      return;
    }
    this.sql`CREATE TABLE IF NOT EXISTS delegations (
      id TEXT PRIMARY KEY,
      from_member TEXT NOT NULL,
      to_member TEXT NOT NULL,
      until INTEGER NOT NULL,
      groups TEXT,
      created_at INTEGER NOT NULL,
      ended_at INTEGER
    )`;
    this.sql`CREATE INDEX IF NOT EXISTS delegations_to ON delegations (to_member, until)`;
    this.#ready = true;
  }

  #exists(): boolean {
    if (!this.#ready) {
      this.#ready = Boolean(
        this.sql.one<{
          n: number;
        }>`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'delegations'`
          ?.n,
      );
    }
    return this.#ready;
  }

  add(d: ActiveDelegation & { createdAt: string }): Delegation {
    this.#migrate();
    this.sql`INSERT INTO delegations (id, from_member, to_member, until, groups, created_at)
      VALUES (${d.id}, ${d.from}, ${d.to}, ${Date.parse(d.until)}, ${d.groups ? JSON.stringify(d.groups) : null}, ${Date.parse(d.createdAt)})`;
    return this.get(d.id) as Delegation;
  }

  get(id: string): Delegation | undefined {
    if (!this.#exists()) {
      return undefined;
    }
    const row = this.sql.one<DelegationRecord>`SELECT * FROM delegations WHERE id = ${id}`;
    return row && delegationOf(row);
  }

  running(query: { now: number; member?: string }): Delegation[] {
    if (!this.#exists()) {
      return [];
    }
    const { now, member } = query;
    const rows =
      member === undefined
        ? this.sql<DelegationRecord>`SELECT * FROM delegations
            WHERE ended_at IS NULL AND until > ${now} ORDER BY created_at, id`
        : this.sql<DelegationRecord>`SELECT * FROM delegations
            WHERE ended_at IS NULL AND until > ${now} AND (from_member = ${member} OR to_member = ${member})
            ORDER BY created_at, id`;
    return rows.map(delegationOf);
  }

  to(member: string, now: number): ActiveDelegation[] {
    if (!this.#exists()) {
      return [];
    }
    return this.sql<DelegationRecord>`SELECT * FROM delegations
      WHERE to_member = ${member} AND ended_at IS NULL AND until > ${now} ORDER BY created_at, id`.map(
      (row) => {
        const { createdAt: _c, endedAt: _e, ...active } = delegationOf(row);
        return active;
      },
    );
  }

  end(id: string, now: number): Delegation | undefined {
    if (!this.#exists()) {
      return undefined;
    }
    this.sql`UPDATE delegations SET ended_at = ${now} WHERE id = ${id} AND ended_at IS NULL`;
    return this.get(id);
  }
}

function delegationOf(row: DelegationRecord): Delegation {
  const groups = row.groups === null ? undefined : (JSON.parse(row.groups) as string[]);
  return {
    id: row.id,
    from: row.fromMember,
    to: row.toMember,
    until: new Date(row.until).toISOString(),
    ...(groups ? { groups } : {}),
    createdAt: new Date(row.createdAt).toISOString(),
    endedAt: row.endedAt === null ? null : new Date(row.endedAt).toISOString(),
  };
}
