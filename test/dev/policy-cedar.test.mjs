/**
 * Issue 43 item 3 under `wrangler dev` (workerd): a Cedar policy evaluated in the worker with
 * @cedar-policy/cedar-wasm, imported as a CompiledWasm module (workerd compiles no wasm from
 * bytes at run time). The demo agent under the worked example (test/fixtures/dev-cedar-worker.ts):
 * a refund over $1,000 waits for two of finance because a Cedar permit says @ask("finance"),
 * a forbid declines a refund without a person and the model hears its @reason.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createClient, isFinished, isPending } from "../../scripts/lib/api.mjs";
import { RUNTIME_ERROR, startDevServer } from "../../scripts/lib/dev-server.mjs";

const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`policy-cedar.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

let server;

before(async () => {
  server = await startDevServer({
    timeoutMs: 60_000,
    script: "test/fixtures/dev-cedar-worker.ts",
  });
});

after(async () => {
  await server?.stop();
});

test("a Cedar policy decides the demo agent's calls in workerd", { timeout: 120_000 }, async () => {
  const client = createClient({
    baseUrl: server.url,
    apiToken: server.apiToken,
    webhookSecret: server.webhookSecrets[0],
  });

  // $500: the demo's own rule asks anyone, Cedar permits: the stricter (the code's) stands.
  const small = await client.startRun({ agent: "support", input: "Refund order 42 for $500" });
  const smallRun = await client.waitFor(small.body.runId, isPending);
  assert.equal(smallRun.pending.data.approvers, undefined);
  assert.equal(smallRun.pending.policy, "code");

  // $500 on order 13: a forbid, without a person; the model hears the policy's reason.
  const denied = await client.startRun({ agent: "support", input: "Refund order 13 for $500" });
  const deniedRun = await client.waitFor(denied.body.runId, isFinished);
  const call = deniedRun.toolCalls.find((c) => c.name === "refund_order");
  assert.match(
    call?.output ?? "",
    /\nreason: policy: refunds on order 13 are under investigation$/,
    JSON.stringify(deniedRun.toolCalls),
  );
  assert.equal(deniedRun.requests.length, 0);

  // $1,500: @ask("finance") @quorum("2") on the permit that matched.
  const large = await client.startRun({ agent: "support", input: "Refund order 42 for $1500" });
  const largeRun = await client.waitFor(large.body.runId, isPending);
  assert.deepEqual(largeRun.pending.data.approvers, {
    group: "finance",
    quorum: 2,
    editable: ["amount"],
  });
  assert.equal(largeRun.pending.policy, "cedar");
  assert.match(largeRun.pending.policyDecision.id, /^cedar:[0-9a-f]{8}$/);
  assert.doesNotMatch(server.output(), RUNTIME_ERROR, server.tail());
});
