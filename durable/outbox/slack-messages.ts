/**
 * Which Slack messages show which request (the thread's side of src/edge/slack/sync.ts):
 * one row per request and channel, claimed before posting so two deliveries of the same
 * queue message cannot both post, and holding the message's `ts` once posted.
 */
import { decodeInboxItem } from "../storage/decode";
import type { SlackSource } from "../../src/edge/slack/sync";
import type { Sql } from "../storage/sql";

/** A claim that never turned into a post (the consumer died) may be taken over after this. */
export const SLACK_CLAIM_MS = 60_000;

export class SlackMessages {
  constructor(private readonly sql: Sql) {}

  source(runId: string, requestId: string): SlackSource | undefined {
    const row = this.sql.one<{ item: string }>`
      SELECT item FROM inbox_requests WHERE request_id = ${requestId} AND run_id = ${runId}`;
    if (!row) {
      return undefined;
    }
    const messages = this.sql<{ channel: string; ts: string }>`
      SELECT channel, ts FROM slack_messages WHERE request_id = ${requestId} AND ts IS NOT NULL`;
    return { item: decodeInboxItem(row.item), messages };
  }

  claim(requestId: string, channel: string, now: number): boolean {
    const taken = this.sql<{ requestId: string }>`
      INSERT INTO slack_messages (request_id, channel, ts, claimed_at)
      VALUES (${requestId}, ${channel}, NULL, ${now})
      ON CONFLICT (request_id, channel) DO UPDATE SET claimed_at = excluded.claimed_at
      WHERE slack_messages.ts IS NULL AND slack_messages.claimed_at <= ${now - SLACK_CLAIM_MS}
      RETURNING request_id`;
    return taken.length > 0;
  }

  release(requestId: string, channel: string): void {
    this
      .sql`DELETE FROM slack_messages WHERE request_id = ${requestId} AND channel = ${channel} AND ts IS NULL`;
  }

  posted(requestId: string, channel: string, ts: string): void {
    this
      .sql`UPDATE slack_messages SET ts = ${ts} WHERE request_id = ${requestId} AND channel = ${channel}`;
  }
}
