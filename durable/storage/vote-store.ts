/**
 * Storage of approver votes (schema v5; v7 adds each vote's `args_hash`): one row per vote, refused attempts, and one
 * row per request with rules holding the request itself and its reminder and
 * escalation timers. Synchronous, like `RunStore`, so callers commit atomically.
 */
import type { Request } from "../../src/core/types";
import type { Vote } from "../../src/core/approvers/vote";
import type { Sql } from "./sql";
import { decodeApproval, type RawRow } from "./decode";
import type { ApprovalRow } from "./records";

export type { ApprovalRow } from "./records";

export interface VoteRow {
  seq: number;
  requestId: string;
  runId: string;
  decidedBy: string;
  decision: Vote["decision"];
  channel: string;
  args: string | null;
  webhookId: string | null;
  /** The version of the arguments the vote was cast on (null on rows older than schema v7). */
  argsHash: string | null;
  /** Issue 42 (v13): the member a delegate stood in for (null: the voter's own seat). */
  onBehalfOf?: string | null;
  at: number;
  reset: number;
}

export interface RefusalRow {
  requestId: string;
  runId: string;
  decidedBy: string;
  channel: string;
  code: string;
  at: number;
}

type R<T> = T & Record<string, SqlStorageValue>;

export class VoteStore {
  constructor(private readonly sql: Sql) {}

  votes(requestId: string): Vote[] {
    return this.sql<
      R<VoteRow>
    >`SELECT * FROM votes WHERE request_id = ${requestId} ORDER BY seq`.map(voteOfRow);
  }

  insertVote(row: Omit<VoteRow, "seq" | "reset">): void {
    this
      .sql`INSERT INTO votes (request_id, run_id, decided_by, decision, channel, args, webhook_id, args_hash, at, on_behalf_of)
      VALUES (${row.requestId}, ${row.runId}, ${row.decidedBy}, ${row.decision}, ${row.channel}, ${row.args}, ${row.webhookId}, ${row.argsHash}, ${row.at}, ${row.onBehalfOf ?? null})`;
  }

  /** The vote a signed delivery (its webhook-id, or a Slack request signature) already cast. */
  voteByDelivery(requestId: string, webhookId: string): Vote | undefined {
    const row = this.sql.one<R<VoteRow>>`SELECT * FROM votes
      WHERE request_id = ${requestId} AND webhook_id = ${webhookId} ORDER BY seq LIMIT 1`;
    return row ? voteOfRow(row) : undefined;
  }

  /** An edit voids the approvals before it: they stay in the record, marked reset. */
  resetApprovals(requestId: string): void {
    this
      .sql`UPDATE votes SET reset = 1 WHERE request_id = ${requestId} AND decision = 'approve' AND reset = 0`;
  }

  refusals(requestId: string): RefusalRow[] {
    return this.sql<
      R<RefusalRow>
    >`SELECT request_id, run_id, decided_by, channel, code, at FROM refusals WHERE request_id = ${requestId} ORDER BY seq`;
  }

  insertRefusal(row: RefusalRow): void {
    this.sql`INSERT INTO refusals (request_id, run_id, decided_by, channel, code, at)
      VALUES (${row.requestId}, ${row.runId}, ${row.decidedBy}, ${row.channel}, ${row.code}, ${row.at})`;
  }

  approval(requestId: string): ApprovalRow | undefined {
    const row = this.sql.one<RawRow>`SELECT * FROM approvals WHERE request_id = ${requestId}`;
    return row && decodeApproval(row);
  }

  approvalsOfRun(runId: string): ApprovalRow[] {
    return this.sql<RawRow>`
      SELECT * FROM approvals WHERE run_id = ${runId} ORDER BY COALESCE(surfaced_at, 0), request_id`.map(
      decodeApproval,
    );
  }

  /** Keeps the request a vote was cast on (idempotent): the rules outlive the run's pending slot. */
  keepRequest(runId: string, request: Request): void {
    this
      .sql`INSERT INTO approvals (request_id, run_id, request) VALUES (${request.id}, ${runId}, ${JSON.stringify(request)})
      ON CONFLICT (request_id) DO NOTHING`;
  }

  /** The request was surfaced to approvers: its reminder and escalation clocks start now (once). */
  startTimers(
    runId: string,
    request: Request,
    timers: { now: number; remindEvery?: number; escalateAfter?: number; escalateTo?: string },
  ): void {
    this.keepRequest(runId, request);
    const { now, remindEvery, escalateAfter, escalateTo } = timers;
    this.sql`UPDATE approvals SET surfaced_at = ${now},
        remind_every = ${remindEvery ?? null},
        next_remind_at = ${remindEvery === undefined ? null : now + remindEvery},
        escalate_at = ${escalateAfter === undefined ? null : now + escalateAfter},
        escalate_to = ${escalateTo ?? null}
      WHERE request_id = ${request.id} AND surfaced_at IS NULL`;
  }

  /** Timers that may fire: requests with a reminder or an escalation still ahead. */
  armedTimers(): ApprovalRow[] {
    return this.sql<RawRow>`SELECT * FROM approvals
      WHERE next_remind_at IS NOT NULL OR (escalate_at IS NOT NULL AND escalated_at IS NULL)`.map(
      decodeApproval,
    );
  }

  reminded(requestId: string, n: number, next: number | null): void {
    this
      .sql`UPDATE approvals SET reminders = ${n}, next_remind_at = ${next} WHERE request_id = ${requestId}`;
  }

  escalated(requestId: string, now: number): void {
    this.sql`UPDATE approvals SET escalated_at = ${now} WHERE request_id = ${requestId}`;
  }

  /** Nothing more to send for this request (decided, expired, cancelled). */
  stopTimers(requestId: string): void {
    this
      .sql`UPDATE approvals SET next_remind_at = NULL, escalate_at = CASE WHEN escalated_at IS NULL THEN NULL ELSE escalate_at END
      WHERE request_id = ${requestId}`;
  }
}

export function voteOfRow(row: VoteRow): Vote {
  const args = row.args === null ? undefined : (JSON.parse(row.args) as unknown);
  return {
    decidedBy: row.decidedBy,
    decision: row.decision,
    channel: row.channel,
    ...(args === undefined ? {} : { args }),
    ...(row.argsHash === null ? {} : { argsHash: row.argsHash }),
    at: new Date(row.at).toISOString(),
    ...(row.reset ? { reset: true } : {}),
    ...(row.onBehalfOf ? { onBehalfOf: row.onBehalfOf } : {}),
  };
}
