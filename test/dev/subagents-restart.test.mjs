/**
 * Issue 24 under `wrangler dev`, across a restart: the demo coordinator's child (`refunds`)
 * suspends on its four-eyes refund; wrangler dev is stopped and started again on the same
 * persisted state (nothing of the tree is in memory any more); two finance members then
 * decide by signed webhook, the coordinator finishes with the child's result, and the
 * finished sibling (`lookup`) ran its tool once over both servers.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { createClient } from "../../scripts/lib/api.mjs";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { decideDelegation, startDelegation } from "../../scripts/lib/delegation.mjs";

const HARD_LIMIT_MS = 240_000; // two wrangler dev starts
setTimeout(() => {
  console.error(
    `subagents-restart.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`,
  );
  process.exit(1);
}, HARD_LIMIT_MS).unref();

const stateDir = mkdtempSync(path.join(tmpdir(), "toolnexus-restart-"));
let server;

after(async () => {
  await server?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

async function serve() {
  server = await startDevServer({ timeoutMs: 90_000, stateDir });
  return createClient({
    baseUrl: server.url,
    apiToken: server.apiToken,
    webhookSecret: server.webhookSecrets[0],
  });
}

async function events(runId) {
  const response = await fetch(`${server.url}/v1/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${server.apiToken}`, accept: "text/event-stream" },
  });
  return response.text();
}

test("a child's approval decided after a restart of wrangler dev; the coordinator finishes", {
  timeout: 220_000,
}, async () => {
  const first = await serve();
  const { runId, pending, request } = await startDelegation({ client: first });
  assert.deepEqual(request.data.path, ["root", "coordinator.1", "refunds.1"]); // issue 40: segments
  assert.deepEqual(
    pending.tree.map((h) => [h.handle, h.state]),
    [
      ["root/coordinator.1", "suspended"],
      ["root/coordinator.1/lookup.1", "closed"],
      ["root/coordinator.1/refunds.1", "suspended"],
    ],
  );
  await server.stop();

  const second = await serve();
  const reread = await second.getRun(runId);
  assert.equal(reread.status, "pending");
  assert.equal(reread.pending.id, request.id);
  const { votes, done } = await decideDelegation({ client: second, runId, request });
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
  const lines = (await events(runId)).split("\n");
  const executed = (name) =>
    lines.filter((line) => line.includes(`"name":"${name}"`) && line.includes('"output"'));
  assert.equal(executed("lookup_order").length, 1, "the finished sibling's tool ran exactly once");
  assert.equal(executed("refund_order").length, 1, "the approved refund ran once");
});
