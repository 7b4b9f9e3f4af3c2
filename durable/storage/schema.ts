/**
 * The thread object's tables. Created by the object's first write (a fresh object that
 * is only read — a made-up run id — writes nothing: see `createLazySql`), and brought up to
 * date idempotently when an object with older storage starts; the version row lets a later
 * migration know where it starts.
 *
 * - runs: one row per run (status, the surfaced pending request, totals).
 * - messages: the thread's transcript, append-only, one row per message.
 * - slots: results of a halted turn while any of its calls is suspended (the only
 *   rows ever replaced; they move to `messages` when the turn completes).
 * - tool_calls: resolved calls per run, append-only (RunResult.toolCalls).
 * - decisions: the ledger keyed by request id — first decision wins; also the audit trail.
 * - events: the run's event log for SSE replay.
 * - inbox_requests: per request, the version and groups of its approvals-inbox item.
 * - inbox_outbox: inbox item versions not yet acknowledged by their group's InboxObject
 *   (written in the same transaction as the change they describe; see durable/outbox/inbox.ts).
 * - slack_messages: the Slack message (channel, ts) that shows each request, per channel.
 * - votes: every approver's vote on a request with rules (v5); the settled outcome
 *   still lands in `decisions`, so runs stored before v5 keep working unchanged.
 * - refusals: votes refused because of who cast them (not an approver, own request).
 * - approvals: each request with rules (kept whole, so its rules outlive the run's
 *   pending slot) and its reminder and escalation timers.
 * - notify_outbox: approver notifications not yet taken by the notify queue (v6; see
 *   durable/outbox/notify.ts).
 * - agent_handles, agent_messages: the sub-agent tree of a run whose agent has a team (v8;
 *   see durable/storage/handle-store.ts).
 * - runs.trace (v9): the halted run's W3C trace context (thread/drive/tracing.ts).
 * - receipts: one signed decision receipt per applied decision, chained per thread (v10; see
 *   durable/receipts/thread-receipts.ts); receipt_delivery: how far the receipts store has
 *   acknowledged them (durable/outbox/receipts.ts). runs.agent_version (v10): the agent version
 *   the run started, or last suspended, under. decisions.agent_version (v11): the agent version
 *   a decision arriving was checked and recorded under (durable/versions/decision-check.ts), so
 *   the driver checks again only a decision that meets a newer deploy (durable/versions/resume-check.ts).
 */
import type { Sql } from "./sql";
import { migrateHandles } from "./handle-store";

export const SCHEMA_VERSION = 11;

/** Whether this storage has any schema of ours yet (one read of sqlite_master, no write). */
export function hasSchema(sql: Sql): boolean {
  return (
    (sql.one<{
      n: number;
    }>`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'meta'`?.n ?? 0) > 0
  );
}

export function migrate(sql: Sql): void {
  // Every construction calls this; an up-to-date object pays one read.
  // COUNT(*) always yields one row; no row reads as no meta table.
  const hasMeta = sql.one<{
    n: number;
  }>`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'meta'`?.n;
  const current = hasMeta
    ? sql<{ value: string }>`SELECT value FROM meta WHERE key = 'schema_version'`[0]?.value
    : undefined;
  if (current === String(SCHEMA_VERSION)) {
    return;
  }
  sql`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    agent TEXT NOT NULL,
    status TEXT NOT NULL,
    input TEXT NOT NULL,
    callback_url TEXT,
    metadata TEXT,
    public_url TEXT NOT NULL,
    pending TEXT,
    inline_request TEXT,
    expires_at INTEGER,
    text TEXT,
    usage TEXT NOT NULL,
    turns INTEGER NOT NULL DEFAULT 0,
    model TEXT,
    error TEXT,
    limit_reason TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    cancelled_at INTEGER
  )`;
  sql`CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, body TEXT NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS slots (
    run_id TEXT NOT NULL, position INTEGER NOT NULL, call_id TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id)
  )`;
  sql`CREATE TABLE IF NOT EXISTS tool_calls (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, body TEXT NOT NULL)`;
  sql`CREATE INDEX IF NOT EXISTS tool_calls_run ON tool_calls (run_id)`;
  sql`CREATE TABLE IF NOT EXISTS decisions (
    request_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    decision TEXT NOT NULL,
    answer TEXT NOT NULL,
    channel TEXT NOT NULL,
    decided_by TEXT,
    webhook_id TEXT,
    decided_at INTEGER NOT NULL,
    applied_at INTEGER
  )`;
  sql`CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, at INTEGER NOT NULL)`;
  sql`CREATE INDEX IF NOT EXISTS events_run ON events (run_id, id)`;
  // v2: an MCP elicitation being waited for inline (see durable/thread/drive/elicitation.ts).
  const columns = sql<{ name: string }>`SELECT name FROM pragma_table_info('runs')`.map(
    (c) => c.name,
  );
  if (!columns.includes("inline_request")) {
    sql`ALTER TABLE runs ADD COLUMN inline_request TEXT`;
  }
  // v3: the approvals inbox's transactional outbox.
  sql`CREATE TABLE IF NOT EXISTS inbox_requests (
    request_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    groups TEXT NOT NULL,
    surfaced_at INTEGER NOT NULL,
    item TEXT NOT NULL
  )`;
  sql`CREATE INDEX IF NOT EXISTS inbox_requests_run ON inbox_requests (run_id, status)`;
  sql`CREATE TABLE IF NOT EXISTS inbox_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    grp TEXT NOT NULL,
    request_id TEXT NOT NULL,
    item TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0
  )`;
  // v4: Slack messages per request (see slack-messages.ts).
  sql`CREATE TABLE IF NOT EXISTS slack_messages (
    request_id TEXT NOT NULL,
    channel TEXT NOT NULL,
    ts TEXT,
    claimed_at INTEGER NOT NULL,
    PRIMARY KEY (request_id, channel)
  )`;
  // v5: approvers (who asked, votes, refused attempts, reminder and escalation timers).
  if (!columns.includes("requested_by")) {
    sql`ALTER TABLE runs ADD COLUMN requested_by TEXT`;
  }
  sql`CREATE TABLE IF NOT EXISTS votes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    decision TEXT NOT NULL,
    channel TEXT NOT NULL,
    args TEXT,
    webhook_id TEXT,
    at INTEGER NOT NULL,
    reset INTEGER NOT NULL DEFAULT 0
  )`;
  sql`CREATE INDEX IF NOT EXISTS votes_request ON votes (request_id, seq)`;
  sql`CREATE TABLE IF NOT EXISTS refusals (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    channel TEXT NOT NULL,
    code TEXT NOT NULL,
    at INTEGER NOT NULL
  )`;
  sql`CREATE INDEX IF NOT EXISTS refusals_request ON refusals (request_id, seq)`;
  sql`CREATE TABLE IF NOT EXISTS approvals (
    request_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    request TEXT NOT NULL,
    surfaced_at INTEGER,
    remind_every INTEGER,
    reminders INTEGER NOT NULL DEFAULT 0,
    next_remind_at INTEGER,
    escalate_at INTEGER,
    escalate_to TEXT,
    escalated_at INTEGER
  )`;
  sql`CREATE INDEX IF NOT EXISTS approvals_run ON approvals (run_id)`;
  // v6: notifications written with the suspension, removed once queued (durable/outbox/notify.ts).
  sql`CREATE TABLE IF NOT EXISTS notify_outbox (
    request_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    message TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    due_at INTEGER NOT NULL
  )`;
  // v7: each vote records the version of the arguments it was cast on (argsHash).
  const voteColumns = sql<{ name: string }>`SELECT name FROM pragma_table_info('votes')`.map(
    (c) => c.name,
  );
  if (!voteColumns.includes("args_hash")) {
    sql`ALTER TABLE votes ADD COLUMN args_hash TEXT`;
  }
  sql`CREATE INDEX IF NOT EXISTS votes_webhook ON votes (request_id, webhook_id)`;
  // v8: sub-agent handles and their transcripts.
  migrateHandles(sql);
  // v9: the trace context stored with a suspension, so the resumed half continues its trace.
  if (!columns.includes("trace")) {
    sql`ALTER TABLE runs ADD COLUMN trace TEXT`;
  }
  // v10: agent versions and decision receipts (issue 30).
  if (!columns.includes("agent_version")) {
    sql`ALTER TABLE runs ADD COLUMN agent_version TEXT`;
  }
  sql`CREATE TABLE IF NOT EXISTS receipts (
    seq INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    at TEXT NOT NULL,
    draft TEXT NOT NULL,
    jws TEXT
  )`;
  sql`CREATE INDEX IF NOT EXISTS receipts_run ON receipts (run_id, seq)`;
  sql`CREATE TABLE IF NOT EXISTS receipt_delivery (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    acked_seq INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    retry_at INTEGER
  )`;
  // v11: the version a decision was recorded under (null: an expiry, or one recorded before v11).
  const decisionColumns = sql<{
    name: string;
  }>`SELECT name FROM pragma_table_info('decisions')`.map((c) => c.name);
  if (!decisionColumns.includes("agent_version")) {
    sql`ALTER TABLE decisions ADD COLUMN agent_version TEXT`;
  }
  sql`INSERT INTO meta (key, value) VALUES ('schema_version', ${String(SCHEMA_VERSION)})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}
