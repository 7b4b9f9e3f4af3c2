/**
 * The starter's wrangler.toml: every binding, migration and queue the edge needs, the same
 * ones as examples/worker/wrangler.toml under the worker's own name
 * (test/node/cli-init.test.ts holds the two together).
 */
export function wranglerToml(name: string): string {
  return `# Everything toolnexus-edge needs from wrangler.toml. Before \`wrangler deploy\`, the queue
# names must be unique in your Cloudflare account; keep the binding names.
name = "${name}"
main = "src/index.ts"
compatibility_date = "2026-04-01"
# A queue batch ends when its handler returns, not when its waitUntil work does: a slow
# receiver's notification finishes in the background instead of holding the next batch.
compatibility_flags = ["queue_consumer_no_wait_for_wait_until"]
minify = true
keep_names = false
upload_source_maps = true

# One Durable Object per conversation thread (binding THREADS, SQLite storage).
[[durable_objects.bindings]]
name = "THREADS"
class_name = "ThreadObject"

# One approvals inbox per approver group (GET /v1/approvals, the /inbox page).
[[durable_objects.bindings]]
name = "INBOXES"
class_name = "InboxObject"

# One object per MCP session (POST /mcp), so an elicitation reply reaches the call that asked.
[[durable_objects.bindings]]
name = "MCP_SESSIONS"
class_name = "McpSessionObject"

# MCP sign-in tokens, encrypted under MCP_TOKEN_KEY (agents whose MCP servers use oauth).
[[durable_objects.bindings]]
name = "MCP_TOKENS"
class_name = "TokenObject"

# Every thread's signed decision receipts (GET /v1/receipts); every decision needs it.
[[durable_objects.bindings]]
name = "RECEIPTS"
class_name = "ReceiptObject"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["ThreadObject", "InboxObject"]

[[migrations]]
tag = "v2"
new_sqlite_classes = ["McpSessionObject"]

[[migrations]]
tag = "v3"
new_sqlite_classes = ["TokenObject"]

[[migrations]]
tag = "v4"
new_sqlite_classes = ["ReceiptObject"]

# RESUME_QUEUE: a decision was recorded, carry the run on. NOTIFY_QUEUE: tell the run's
# callbackUrl that a request is waiting. The names are the ones src/index.ts gives createEdge.
[[queues.producers]]
binding = "RESUME_QUEUE"
queue = "${name}-resume"

[[queues.producers]]
binding = "NOTIFY_QUEUE"
queue = "${name}-notify"

[[queues.consumers]]
queue = "${name}-resume"
max_batch_size = 10
max_batch_timeout = 1
max_retries = 5
dead_letter_queue = "${name}-resume-dlq"

# 5 deliveries of a notification in all (1 + max_retries), as the edge counts them.
[[queues.consumers]]
queue = "${name}-notify"
max_batch_size = 10
max_batch_timeout = 1
max_retries = 4
dead_letter_queue = "${name}-notify-dlq"

[[queues.consumers]]
queue = "${name}-resume-dlq"

[[queues.consumers]]
queue = "${name}-notify-dlq"
`;
}
