/**
 * The thread object's tables and indexes in their current shape, as constant DDL. A fresh
 * object runs them as one script (schema.ts); storage written by an older version runs each
 * (a no-op for what exists) and then adds the columns later versions brought. A column added
 * here must also get its step in schema.ts `addColumns` for storage that predates it.
 */
/** The receipts chain (v10), also created on its own by ThreadReceipts (durable/receipts/). */
export const RECEIPTS_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS receipts (
    seq INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    at TEXT NOT NULL,
    draft TEXT NOT NULL,
    jws TEXT
  )`,
  `CREATE INDEX IF NOT EXISTS receipts_run ON receipts (run_id, seq)`,
];

export const TABLES: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS runs (
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
    cancelled_at INTEGER,
    requested_by TEXT,
    trace TEXT,
    agent_version TEXT
  )`,
  `CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, body TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS slots (
    run_id TEXT NOT NULL, position INTEGER NOT NULL, call_id TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id)
  )`,
  `CREATE TABLE IF NOT EXISTS tool_calls (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, body TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS tool_calls_run ON tool_calls (run_id)`,
  `CREATE TABLE IF NOT EXISTS decisions (
    request_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    decision TEXT NOT NULL,
    answer TEXT NOT NULL,
    channel TEXT NOT NULL,
    decided_by TEXT,
    webhook_id TEXT,
    decided_at INTEGER NOT NULL,
    applied_at INTEGER,
    agent_version TEXT,
    on_behalf_of TEXT
  )`,
  `CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, at INTEGER NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS events_run ON events (run_id, id)`,
  `CREATE TABLE IF NOT EXISTS inbox_requests (
    request_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    groups TEXT NOT NULL,
    surfaced_at INTEGER NOT NULL,
    item TEXT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS inbox_requests_run ON inbox_requests (run_id, status)`,
  `CREATE TABLE IF NOT EXISTS inbox_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    grp TEXT NOT NULL,
    request_id TEXT NOT NULL,
    item TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0
  )`,
  `CREATE TABLE IF NOT EXISTS slack_messages (
    request_id TEXT NOT NULL,
    channel TEXT NOT NULL,
    ts TEXT,
    claimed_at INTEGER NOT NULL,
    PRIMARY KEY (request_id, channel)
  )`,
  `CREATE TABLE IF NOT EXISTS email_sends (
    request_id TEXT NOT NULL,
    member TEXT NOT NULL,
    kind TEXT NOT NULL,
    sent INTEGER NOT NULL,
    claimed_at INTEGER NOT NULL,
    PRIMARY KEY (request_id, member, kind)
  )`,
  `CREATE TABLE IF NOT EXISTS teams_cards (
    request_id TEXT NOT NULL,
    conversation TEXT NOT NULL,
    activity_id TEXT,
    claimed_at INTEGER NOT NULL,
    PRIMARY KEY (request_id, conversation)
  )`,
  `CREATE TABLE IF NOT EXISTS votes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    decision TEXT NOT NULL,
    channel TEXT NOT NULL,
    args TEXT,
    webhook_id TEXT,
    at INTEGER NOT NULL,
    reset INTEGER NOT NULL DEFAULT 0,
    args_hash TEXT,
    on_behalf_of TEXT
  )`,
  `CREATE INDEX IF NOT EXISTS votes_request ON votes (request_id, seq)`,
  `CREATE TABLE IF NOT EXISTS refusals (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    channel TEXT NOT NULL,
    code TEXT NOT NULL,
    at INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS refusals_request ON refusals (request_id, seq)`,
  `CREATE TABLE IF NOT EXISTS approvals (
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
  )`,
  `CREATE INDEX IF NOT EXISTS approvals_run ON approvals (run_id)`,
  `CREATE TABLE IF NOT EXISTS notify_outbox (
    request_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    message TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    due_at INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS votes_webhook ON votes (request_id, webhook_id)`,
  `CREATE TABLE IF NOT EXISTS agent_handles (
    run_id TEXT NOT NULL,
    handle TEXT NOT NULL,
    parent TEXT NOT NULL,
    agent TEXT NOT NULL,
    depth INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    prompt TEXT NOT NULL,
    state TEXT NOT NULL,
    status TEXT NOT NULL,
    turns INTEGER NOT NULL,
    usage TEXT NOT NULL,
    tool_calls TEXT NOT NULL,
    budget TEXT NOT NULL,
    pending TEXT,
    slots TEXT,
    text TEXT,
    limit_reason TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (run_id, handle)
  )`,
  `CREATE INDEX IF NOT EXISTS agent_handles_call ON agent_handles (run_id, parent, call_id)`,
  `CREATE TABLE IF NOT EXISTS agent_messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, handle TEXT NOT NULL, body TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS agent_messages_handle ON agent_messages (run_id, handle, seq)`,
  ...RECEIPTS_DDL,
  `CREATE TABLE IF NOT EXISTS receipt_delivery (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    acked_seq INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    retry_at INTEGER
  )`,
  // v13 (issue 42): one `warnBefore` timer per request (durable/approvers/expiry-warnings.ts)
  `CREATE TABLE IF NOT EXISTS expiry_warnings (
    request_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    warn_at INTEGER NOT NULL,
    warned_at INTEGER,
    send_due INTEGER,
    attempts INTEGER NOT NULL,
    sent INTEGER NOT NULL
  )`,
];
