/**
 * A thread's undos (issue 44, docs/undo.md): one row per undone run (why, who asked, where it
 * stands) and one row per compensation step, written before the step runs (`started`) and
 * after (`ran`, `failed`, `not_compensable`). A step found `started` after a crash is never
 * run again (drive.ts). The tables are created by the first undo, like the receipts'
 * (durable/receipts/thread-receipts.ts): a thread never undone has none, and no schema
 * version is spent on them.
 */
import type { CompensationRecord, Request } from "../../src/core/types";
import type { Sql } from "../storage/sql";

const DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS undos (
    run_id TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    state TEXT NOT NULL,
    finished_at INTEGER,
    request TEXT
  )`,
  `CREATE TABLE IF NOT EXISTS compensations (
    run_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    tool TEXT NOT NULL,
    status TEXT NOT NULL,
    output TEXT,
    error TEXT,
    started_at INTEGER NOT NULL,
    finished_at INTEGER,
    PRIMARY KEY (run_id, call_id)
  )`,
];

/**
 * Where an undo stands: awaiting approval (an agent's `undo: { approvers }`), declined by its
 * approvers, compensating (steps left), or compensated (every step has its outcome).
 */
export type UndoState = "awaiting_approval" | "declined" | "compensating" | "compensated";

export interface UndoRow {
  runId: string;
  reason: string;
  /** Who asked (`x-toolnexus-user`), or `"onFailure"` for an agent's automatic undo. */
  requestedBy: string;
  requestedAt: number;
  state: UndoState;
  finishedAt: number | null;
  /** The undo's approval request, when the agent's `undo.approvers` asks for one. */
  request: Request | null;
}

/** One step as stored: `started` until its outcome is written. */
export interface StepRow {
  callId: string;
  tool: string;
  status: CompensationRecord["status"] | "started";
  output: string | null;
  error: string | null;
}

export class UndoStore {
  #ready = false;
  /** Read as absent (until `#migrate` creates the tables). */
  #absent = false;

  constructor(private readonly sql: Sql) {}

  undo(runId: string): UndoRow | undefined {
    if (!this.#exists()) {
      return undefined;
    }
    const row = this.sql.one<Omit<UndoRow, "request"> & { request: string | null }>`
      SELECT run_id, reason, requested_by, requested_at, state, finished_at, request FROM undos
       WHERE run_id = ${runId}`;
    return (
      row && { ...row, request: row.request === null ? null : (JSON.parse(row.request) as Request) }
    );
  }

  /** Runs whose undo has steps left, oldest first (the drive and the alarm carry them on). */
  unfinished(): string[] {
    if (!this.#exists()) {
      return [];
    }
    return this.sql<{ runId: string }>`
      SELECT run_id FROM undos WHERE state = 'compensating' ORDER BY requested_at`.map(
      (row) => row.runId,
    );
  }

  /**
   * Records an undo (call in the transaction that checks there is none, or only one its
   * approvers declined or let expire, which this replaces); with `request` it awaits approval.
   */
  begin(input: {
    runId: string;
    reason: string;
    requestedBy: string;
    now: number;
    request?: Request;
  }): void {
    this.#migrate();
    const state: UndoState = input.request ? "awaiting_approval" : "compensating";
    const request = input.request ? JSON.stringify(input.request) : null;
    this.sql`INSERT INTO undos (run_id, reason, requested_by, requested_at, state, request)
      VALUES (${input.runId}, ${input.reason}, ${input.requestedBy}, ${input.now}, ${state}, ${request})
      ON CONFLICT (run_id) DO UPDATE SET reason = excluded.reason, requested_by = excluded.requested_by,
        requested_at = excluded.requested_at, state = excluded.state, request = excluded.request,
        finished_at = NULL`;
  }

  /** The approvers settled the undo's request: compensate (with the reason they approved), or not. */
  settled(runId: string, outcome: { approved: boolean; reason: string; now: number }): void {
    const state: UndoState = outcome.approved ? "compensating" : "declined";
    this.sql`UPDATE undos SET state = ${state}, reason = ${outcome.reason},
      finished_at = ${outcome.approved ? null : outcome.now}
      WHERE run_id = ${runId} AND state = 'awaiting_approval'`;
  }

  finish(runId: string, now: number): void {
    this.sql`UPDATE undos SET state = 'compensated', finished_at = ${now} WHERE run_id = ${runId}`;
  }

  steps(runId: string): StepRow[] {
    if (!this.#exists()) {
      return [];
    }
    return this.sql<StepRow & Record<string, SqlStorageValue>>`
      SELECT call_id, tool, status, output, error FROM compensations WHERE run_id = ${runId}
       ORDER BY position`;
  }

  /** Before a step runs: from here on it is never started again. */
  started(runId: string, step: { callId: string; tool: string; now: number }): void {
    const position =
      this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM compensations WHERE run_id = ${runId}`
        ?.n ?? 0;
    this.sql`INSERT INTO compensations (run_id, call_id, position, tool, status, started_at)
      VALUES (${runId}, ${step.callId}, ${position}, ${step.tool}, 'started', ${step.now})`;
  }

  /** A step's outcome (a `not_compensable` step is started and finished at once). */
  finished(runId: string, record: CompensationRecord, now: number): void {
    this.sql`UPDATE compensations SET status = ${record.status}, output = ${record.output ?? null},
      error = ${record.error ?? null}, finished_at = ${now}
      WHERE run_id = ${runId} AND call_id = ${record.callId}`;
  }

  #migrate(): void {
    if (this.#ready) {
      return;
    }
    for (const ddl of DDL) {
      this.sql.script(ddl);
    }
    this.#ready = true;
    this.#absent = false;
  }

  /**
   * Whether the tables exist, read from sqlite_master once per object. An absence is
   * remembered too (issue 46: the alarm's arming and every drive ask, ≈ 12 times per approval
   * cycle of a thread never undone): this object is its storage's only writer, and only
   * `#migrate` above creates the tables.
   */
  #exists(): boolean {
    if (this.#ready || this.#absent) {
      return this.#ready;
    }
    const found = this.sql.one<{ n: number }>`
      SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'undos'`;
    this.#ready = Boolean(found?.n);
    this.#absent = !this.#ready;
    return this.#ready;
  }
}
