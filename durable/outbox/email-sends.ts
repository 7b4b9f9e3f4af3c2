/**
 * Which member got which approval email (the thread's side of src/edge/email/sync.ts): one row
 * per request, member and email (`first`, `r<n>` for the n-th reminder), claimed before the
 * send so two deliveries of one queue message cannot both send it, marked sent after.
 */
import { decodeInboxItem } from "../storage/decode";
import type { EmailSource } from "../../src/edge/email/thread";
import type { Sql } from "../storage/sql";

/** A claim that never turned into a send (the consumer died) may be taken over after this. */
export const EMAIL_CLAIM_MS = 60_000;

export class EmailSends {
  constructor(private readonly sql: Sql) {}

  source(run: { runId: string; publicUrl: string }, requestId: string): EmailSource | undefined {
    const row = this.sql.one<{ item: string }>`
      SELECT item FROM inbox_requests WHERE request_id = ${requestId} AND run_id = ${run.runId}`;
    return row ? { item: decodeInboxItem(row.item), publicUrl: run.publicUrl } : undefined;
  }

  /** The members this caller may send to now: never sent, and not claimed within the last minute. */
  claim(email: { requestId: string; kind: string }, members: string[], now: number): string[] {
    const claimed: string[] = [];
    for (const member of members) {
      const taken = this.sql<{ member: string }>`
        INSERT INTO email_sends (request_id, member, kind, sent, claimed_at)
        VALUES (${email.requestId}, ${member}, ${email.kind}, 0, ${now})
        ON CONFLICT (request_id, member, kind) DO UPDATE SET claimed_at = excluded.claimed_at
        WHERE email_sends.sent = 0 AND email_sends.claimed_at <= ${now - EMAIL_CLAIM_MS}
        RETURNING member`;
      if (taken.length > 0) {
        claimed.push(member);
      }
    }
    return claimed;
  }

  sent(email: { requestId: string; kind: string }, member: string): void {
    this.sql`UPDATE email_sends SET sent = 1
      WHERE request_id = ${email.requestId} AND member = ${member} AND kind = ${email.kind}`;
  }

  release(email: { requestId: string; kind: string }, member: string): void {
    this.sql`DELETE FROM email_sends
      WHERE request_id = ${email.requestId} AND member = ${member} AND kind = ${email.kind} AND sent = 0`;
  }
}
