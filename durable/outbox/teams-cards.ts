/**
 * Which Teams card shows which request (the thread's side of src/edge/teams/sync.ts): one row
 * per request and conversation, claimed before posting so two deliveries cannot both post,
 * holding the card's activity id once posted so every later change replaces it in place.
 */
import { decodeInboxItem } from "../storage/decode";
import type { TeamsSource } from "../../src/edge/teams/sync";
import type { Sql } from "../storage/sql";

export const TEAMS_CLAIM_MS = 60_000;

export class TeamsCards {
  constructor(private readonly sql: Sql) {}

  source(runId: string, requestId: string): TeamsSource | undefined {
    const row = this.sql.one<{ item: string }>`
      SELECT item FROM inbox_requests WHERE request_id = ${requestId} AND run_id = ${runId}`;
    if (!row) {
      return undefined;
    }
    const cards = this.sql<{ conversation: string; activityId: string }>`
      SELECT conversation, activity_id AS activityId FROM teams_cards
      WHERE request_id = ${requestId} AND activity_id IS NOT NULL`;
    return { item: decodeInboxItem(row.item), cards };
  }

  claim(requestId: string, conversation: string, now: number): boolean {
    const taken = this.sql<{ requestId: string }>`
      INSERT INTO teams_cards (request_id, conversation, activity_id, claimed_at)
      VALUES (${requestId}, ${conversation}, NULL, ${now})
      ON CONFLICT (request_id, conversation) DO UPDATE SET claimed_at = excluded.claimed_at
      WHERE teams_cards.activity_id IS NULL AND teams_cards.claimed_at <= ${now - TEAMS_CLAIM_MS}
      RETURNING request_id`;
    return taken.length > 0;
  }

  release(requestId: string, conversation: string): void {
    this.sql`DELETE FROM teams_cards
      WHERE request_id = ${requestId} AND conversation = ${conversation} AND activity_id IS NULL`;
  }

  posted(requestId: string, conversation: string, activityId: string): void {
    this.sql`UPDATE teams_cards SET activity_id = ${activityId}
      WHERE request_id = ${requestId} AND conversation = ${conversation}`;
  }
}
