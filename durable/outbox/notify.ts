/**
 * Approver notifications (a run's `callbackUrl`) not yet handed to the notify queue.
 *
 * A suspended run's notification used to be sent straight after the suspension was
 * stored: if that send failed, the run stayed pending and nobody was ever told (a
 * redelivered drive finds no work, since the run is already pending). Now the message is
 * written here in the same storage batch as the suspension, removed once the queue has
 * taken it, and retried by the alarm with a backoff while it has not. A message may be sent
 * twice (the object stops after the send, before the row is removed); the queue is
 * at-least-once anyway, and the consumer asks the thread whether the request is still open.
 */
import { decodeNotifyMessage } from "../storage/decode";
import type { NotifyMessage } from "../../src/edge/protocol";
import type { Sql } from "../storage/sql";

/** Attempts before a notification is given up (≈ 1 h 20 min of backoff); the run stays decidable. */
export const MAX_NOTIFY_SEND_ATTEMPTS = 20;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 300_000;

export interface PendingNotification {
  message: NotifyMessage;
  attempts: number;
}

export class NotifyOutbox {
  constructor(private readonly sql: Sql) {}

  /** Keeps `message` until it is sent; one row per request (a second add is ignored). */
  add(message: NotifyMessage, now: number): void {
    this.sql`INSERT INTO notify_outbox (request_id, run_id, message, attempts, due_at)
      VALUES (${message.requestId}, ${message.runId}, ${JSON.stringify(message)}, 0, ${now})
      ON CONFLICT (request_id) DO NOTHING`;
  }

  /** Rows whose time has come, oldest first. */
  due(now: number): PendingNotification[] {
    return this.sql<{ message: string; attempts: number }>`
      SELECT message, attempts FROM notify_outbox WHERE due_at <= ${now} ORDER BY due_at`.map(
      (row) => ({ message: decodeNotifyMessage(row.message), attempts: row.attempts }),
    );
  }

  /** The queue took it. */
  sent(requestId: string): void {
    this.sql`DELETE FROM notify_outbox WHERE request_id = ${requestId}`;
  }

  /**
   * The queue refused it: tried again after a backoff (1 s, 2 s, 4 s … 5 min), or dropped
   * after {@link MAX_NOTIFY_SEND_ATTEMPTS}. Returns whether it will be retried.
   */
  failed(requestId: string, now: number): boolean {
    const row = this.sql.one<{ attempts: number }>`
      SELECT attempts FROM notify_outbox WHERE request_id = ${requestId}`;
    const attempts = (row?.attempts ?? 0) + 1;
    if (attempts >= MAX_NOTIFY_SEND_ATTEMPTS) {
      this.sent(requestId);
      return false;
    }
    const delay = Math.min(FIRST_RETRY_MS * 2 ** (attempts - 1), MAX_RETRY_MS);
    this.sql`UPDATE notify_outbox SET attempts = ${attempts}, due_at = ${now + delay}
      WHERE request_id = ${requestId}`;
    return true;
  }

  /** When the alarm should try again, or undefined when nothing waits. */
  retryAt(): number | undefined {
    const row = this.sql.one<{ due: number | null }>`SELECT MIN(due_at) AS due FROM notify_outbox`;
    return row?.due ?? undefined;
  }
}
