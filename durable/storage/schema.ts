/**
 * The thread object's tables (their DDL: tables.ts). Created by the object's first write (a
 * fresh object that is only read — a made-up run id — writes nothing: see `createLazySql`), as
 * one script for a fresh object; brought up to date idempotently when an object with older
 * storage starts; the version row lets a later migration know where it starts.
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
 * - email_sends (v12): which member got which approval email per request (durable/outbox/email-sends.ts).
 * - teams_cards (v12): the Teams card (conversation, activity id) that shows each request
 *   (durable/outbox/teams-cards.ts).
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
 * - votes.on_behalf_of, decisions.on_behalf_of (v13, issue 42): the member a delegate stood in
 *   for; expiry_warnings (v13, issue 42): each request's `warnBefore` timer (durable/approvers/expiry-warnings.ts).
 */
import type { Sql } from "./sql";
import { TABLES } from "./tables";

export const SCHEMA_VERSION = 13;

/** Whether this storage has any schema of ours yet (one read of sqlite_master, no write). */
export function hasSchema(sql: Sql): boolean {
  return (
    (sql.one<{
      n: number;
    }>`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'meta'`?.n ?? 0) > 0
  );
}

/** The version row, written last: a migration that stopped half-way runs again. */
const VERSION_ROW = `INSERT INTO meta (key, value) VALUES ('schema_version', '${SCHEMA_VERSION}')
  ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

export function migrate(sql: Sql): void {
  // Every construction calls this; an up-to-date object pays one read.
  // COUNT(*) always yields one row; no row reads as no meta table.
  const ours = sql.one<{
    n: number;
  }>`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'runs')`?.n;
  const current = ours
    ? sql.one<{ value: string }>`SELECT value FROM meta WHERE key = 'schema_version'`?.value
    : undefined;
  if (current === String(SCHEMA_VERSION)) {
    return;
  }
  if (!ours) {
    // A fresh object (every new thread): the current shape in one script, no column checks.
    sql.script(`${TABLES.join(";\n")};\n${VERSION_ROW}`);
    return;
  }
  for (const table of TABLES) {
    sql.script(table); // IF NOT EXISTS: creates only the tables this storage predates
  }
  addColumns(sql);
  sql.script(VERSION_ROW);
}

/** The columns later versions added to tables that older storage already has. */
function addColumns(sql: Sql): void {
  const columnsOf = (table: "runs" | "votes" | "decisions") =>
    new Set(sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.map((c) => c.name));
  const added: Array<[table: "runs" | "votes" | "decisions", column: string]> = [
    ["runs", "inline_request"], // v2: an MCP elicitation waited for inline
    ["runs", "requested_by"], // v5: who asked for the run
    ["votes", "args_hash"], // v7: the version of the arguments a vote was cast on
    ["runs", "trace"], // v9: the halted run's trace context
    ["runs", "agent_version"], // v10: the agent version the run started or last suspended under
    ["decisions", "agent_version"], // v11: the agent version a decision was recorded under
    ["votes", "on_behalf_of"], // v13 (issue 42): the member a delegate's vote stood in for
    ["decisions", "on_behalf_of"], // v13 (issue 42): the same, on the decision a vote settled
  ];
  const existing = new Map<string, Set<string>>();
  for (const [table, column] of added) {
    let columns = existing.get(table);
    if (!columns) {
      columns = columnsOf(table);
      existing.set(table, columns);
    }
    if (!columns.has(column)) {
      // Names from the constant list above, never from input.
      sql.script(`ALTER TABLE ${table} ADD COLUMN ${column} TEXT`);
    }
  }
}
