/**
 * Issue 24 under `wrangler dev`: the demo coordinator's child (`refunds`) asks for a four-eyes
 * refund; two finance members decide it by signed webhook; the coordinator finishes with the
 * child's result, and the sibling (`lookup`) ran its tool once.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createClient } from "../../scripts/lib/api.mjs";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { delegationFlow } from "../../scripts/lib/delegation.mjs";

const HARD_LIMIT_MS = 120_000;
setTimeout(() => {
  console.error(`subagents.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

let server;
let client;

before(
  async () => {
    server = await startDevServer({ timeoutMs: 60_000 });
    client = createClient({
      baseUrl: server.url,
      apiToken: server.apiToken,
      webhookSecret: server.webhookSecrets[0],
    });
  },
  { timeout: 75_000 },
);

after(async () => {
  await server?.stop();
});

test("a child's four-eyes approval decided by signed webhook; the coordinator finishes", async () => {
  const { pending, request, votes, done } = await delegationFlow({ client });
  assert.deepEqual(request.data.path, ["root", "coordinator.1", "refunds.1"]); // issue 40: segments
  assert.deepEqual(
    pending.tree.map((h) => [h.handle, h.state]),
    [
      ["root/coordinator.1", "suspended"],
      ["root/coordinator.1/lookup.1", "closed"],
      ["root/coordinator.1/refunds.1", "suspended"],
    ],
  );
  assert.deepEqual(
    votes.map((v) => v.votes),
    [1, 2],
  );
  assert.equal(done.status, "done");
  assert.match(done.text, /Refunded \$1200 on order 42/);
  assert.match(done.text, /Order 42 is shipped/);
  assert.deepEqual(
    done.tree.map((h) => h.state),
    ["closed", "closed", "closed"],
  );
  const events = await fetch(`${server.url}/v1/runs/${done.runId}/events`, {
    headers: { authorization: `Bearer ${server.apiToken}`, accept: "text/event-stream" },
  }).then((r) => r.text());
  const lookups = events
    .split("\n")
    .filter((line) => line.includes('"name":"lookup_order"') && line.includes('"output"'));
  assert.equal(lookups.length, 1, "the finished sibling's tool ran exactly once");
});
