/**
 * Storage of `warnBefore` timers (schema v13, issue 42): one row per request in
 * `expiry_warnings` — when to warn, when it was warned (once), and whether its webhook still
 * waits to be handed to the notify queue. The firing is durable/approvers/expiry-warnings.ts.
 */
import type { Sql } from "../storage/sql";

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 300_000;
const MAX_SEND_ATTEMPTS = 20;

export interface WarningRow extends Record<string, SqlStorageValue> {
  requestId: string;
  runId: string;
  warnAt: number;
  warnedAt: number | null;
  sendDue: number | null;
  attempts: number;
  sent: number;
}

export class ExpiryWarnings {
  constructor(private readonly sql: Sql) {}

  /** Arms the request's warning (once: a request surfacing again keeps its first). */
  arm(runId: string, requestId: string, warnAt: number): void {
    this.sql`INSERT INTO expiry_warnings (request_id, run_id, warn_at, attempts, sent)
      VALUES (${requestId}, ${runId}, ${warnAt}, 0, 0) ON CONFLICT (request_id) DO NOTHING`;
  }

  /** When the alarm must next look: a warning due, or a webhook waiting to be queued. */
  nextAt(): number | undefined {
    const row = this.sql.one<{ due: number | null }>`SELECT MIN(due) AS due FROM (
        SELECT warn_at AS due FROM expiry_warnings WHERE warned_at IS NULL
        UNION ALL SELECT send_due AS due FROM expiry_warnings WHERE send_due IS NOT NULL)`;
    return row?.due ?? undefined;
  }

  due(now: number): WarningRow[] {
    return this.sql<WarningRow>`SELECT * FROM expiry_warnings
      WHERE warned_at IS NULL AND warn_at <= ${now} ORDER BY warn_at`;
  }

  /** Warned (or disarmed: `send` false) — never again. */
  warned(requestId: string, at: { now: number; send: boolean }): void {
    this.sql`UPDATE expiry_warnings SET warned_at = ${at.now}, send_due = ${at.send ? at.now : null}
      WHERE request_id = ${requestId} AND warned_at IS NULL`;
  }

  unsent(now: number): WarningRow[] {
    return this.sql<WarningRow>`SELECT * FROM expiry_warnings
      WHERE send_due IS NOT NULL AND send_due <= ${now} ORDER BY send_due`;
  }

  /** The queue took the webhook; `sent` counts the hand-overs (a test reads it). */
  sent(requestId: string): void {
    this
      .sql`UPDATE expiry_warnings SET send_due = NULL, sent = sent + 1 WHERE request_id = ${requestId}`;
  }

  /** The queue refused it: again after a backoff, or given up. */
  failed(requestId: string, now: number): void {
    const row = this.sql.one<{ attempts: number }>`
      SELECT attempts FROM expiry_warnings WHERE request_id = ${requestId}`;
    const attempts = (row?.attempts ?? 0) + 1;
    const due =
      attempts >= MAX_SEND_ATTEMPTS
        ? null
        : now + Math.min(FIRST_RETRY_MS * 2 ** (attempts - 1), MAX_RETRY_MS);
    this.sql`UPDATE expiry_warnings SET attempts = ${attempts}, send_due = ${due}
      WHERE request_id = ${requestId}`;
  }
}
