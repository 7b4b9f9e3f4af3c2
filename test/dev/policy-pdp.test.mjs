/**
 * Issue 43's pinned checks under `wrangler dev` (workerd, real Durable Objects and queues):
 * the demo worker with AUTHZEN_URL pointing at a fake AuthZEN PDP on 127.0.0.1.
 *   - `{ decision: false, context: { reason: "over limit" } }` for refund_order over $5000:
 *     the call is declined without a person and the model hears `over limit`;
 *   - `{ decision: true, context: { ask: { groups: ["finance"], quorum: 2 } } }`: the
 *     request waits for two of finance;
 *   - the PDP down: the demo's in-code rule applies and GET /v1/runs/:id shows
 *     `policy: "fallback"` on the request; `/metrics` counts the fallback.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { createClient, isFinished, isPending } from "../../scripts/lib/api.mjs";
import { RUNTIME_ERROR, startDevServer, TEST_VARS } from "../../scripts/lib/dev-server.mjs";

const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`policy-pdp.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

/** What the PDP was asked, and how it answers now ("rules" or "down"). */
const asked = [];
let mode = "rules";
let pdp;
let server;

before(async () => {
  pdp = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      if (mode === "down") {
        req.socket.destroy(); // as good as a PDP that is not there
        return;
      }
      const body = JSON.parse(text);
      if (req.url === "/shadow/access/v1/evaluation") {
        // The candidate in shadow mode: no refunds at all.
        const answer =
          body.resource?.id === "refund_order"
            ? { decision: false, context: { reason: "shadow: no refunds" } }
            : { decision: true };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
        return;
      }
      asked.push({ path: req.url, auth: req.headers.authorization, body });
      const amount = body.resource?.properties?.args?.amount ?? 0;
      const answer =
        body.resource?.id !== "refund_order"
          ? { decision: true }
          : amount > 5000
            ? { decision: false, context: { reason: "over limit" } }
            : {
                decision: true,
                context: { ask: { groups: ["finance"], quorum: 2, editable: ["amount"] } },
              };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise((resolve) => pdp.listen(0, "127.0.0.1", resolve));
  server = await startDevServer({
    timeoutMs: 60_000,
    vars: {
      ...TEST_VARS,
      AUTHZEN_URL: `http://127.0.0.1:${pdp.address().port}/pdp`,
      AUTHZEN_TOKEN: "pdp-token",
      AUTHZEN_SHADOW_URL: `http://127.0.0.1:${pdp.address().port}/shadow`,
    },
  });
});

after(async () => {
  await server?.stop();
  await new Promise((resolve) => pdp?.close(resolve) ?? resolve());
});

test("the demo worker asks the AuthZEN PDP about every tool call", {
  timeout: 120_000,
}, async () => {
  const client = createClient({
    baseUrl: server.url,
    apiToken: server.apiToken,
    webhookSecret: server.webhookSecrets[0],
  });

  // Over the limit: declined without a person, and the model hears why.
  const denied = await client.startRun({ agent: "support", input: "Refund order 42 for $6000" });
  const deniedRun = await client.waitFor(denied.body.runId, isFinished);
  assert.equal(deniedRun.status, "done");
  const call = deniedRun.toolCalls.find((c) => c.name === "refund_order");
  assert.ok(call, JSON.stringify(deniedRun.toolCalls));
  assert.match(
    call.output,
    /^declined\/expired: Refund \$6000 on order 42\?\nreason: policy: over limit$/,
  );
  assert.match(deniedRun.text, /over limit/);
  assert.equal(deniedRun.requests.length, 0, "nobody was asked");
  const policyDecision = deniedRun.decisions.find((d) => d.channel === "policy");
  assert.ok(policyDecision, `a policy decision in ${JSON.stringify(deniedRun.decisions)}`);
  assert.equal(asked[0].path, "/pdp/access/v1/evaluation");
  assert.equal(asked[0].auth, "Bearer pdp-token");
  assert.deepEqual(asked[0].body.action, { name: "call_tool" });
  assert.equal(asked[0].body.resource.properties.agent, "support");
  assert.equal(asked[0].body.context.runId, denied.body.runId);

  // Under it: two of finance must agree (the demo's own rule asks anyone below $1000).
  const ask = await client.startRun({ agent: "support", input: "Refund order 42 for $120" });
  const waiting = await client.waitFor(ask.body.runId, isPending);
  assert.deepEqual(waiting.pending.data.approvers, {
    group: "finance",
    quorum: 2,
    editable: ["amount"],
  });
  // An approver's edit is judged by the same PDP: $6000 is over its limit, so the edit is
  // refused and nothing is recorded (the in-code rule alone would have taken it).
  const edited = await client.decide(
    {
      runId: ask.body.runId,
      requestId: waiting.pending.id,
      decision: "approve",
      decidedBy: "bob@example.com",
      args: { ...waiting.pending.data.args, amount: 6000 },
    },
    { expect: [400] },
  );
  assert.equal(edited.body.error.code, "edit_refused");
  assert.match(edited.body.error.message, /over limit/);
  assert.deepEqual((await client.getRun(ask.body.runId)).requests[0]?.votes, []);
  assert.equal(waiting.pending.policy, "authzen");
  assert.equal(waiting.requests[0]?.policy, "authzen");
  assert.equal(waiting.requests[0]?.needed, 2);
  await client.decide(
    {
      runId: ask.body.runId,
      requestId: waiting.pending.id,
      decision: "approve",
      decidedBy: "ann@example.com",
    },
    { expect: [202] },
  );
  assert.equal((await client.getRun(ask.body.runId)).status, "pending", "one of two is not enough");
  await client.decide(
    {
      runId: ask.body.runId,
      requestId: waiting.pending.id,
      decision: "approve",
      decidedBy: "bob@example.com",
    },
    { expect: [202] },
  );
  assert.equal((await client.waitFor(ask.body.runId, isFinished)).status, "done");

  // Shadow mode: the candidate would have refused what the live PDP asked finance about.
  const events = await fetch(`${server.url}/v1/runs/${ask.body.runId}/events`, {
    headers: { authorization: `Bearer ${server.apiToken}` },
  }).then((r) => r.text());
  const shadowEvent = /event: policy_shadow\ndata: (.*)\n/.exec(events);
  assert.ok(shadowEvent, events);
  assert.deepEqual(JSON.parse(shadowEvent[1]).shadow, {
    policy: "authzen-shadow",
    decision: "deny",
    reason: "policy: shadow: no refunds",
  });
  assert.equal(JSON.parse(shadowEvent[1]).live.decision, "ask");
  let listed;
  for (let i = 0; i < 50; i++) {
    listed = await fetch(`${server.url}/v1/policy/disagreements`, {
      headers: { authorization: `Bearer ${server.apiToken}` },
    }).then((r) => r.json());
    if (listed.items.some((item) => item.runId === ask.body.runId)) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const item = listed.items.find((i) => i.runId === ask.body.runId);
  assert.ok(item, JSON.stringify(listed));
  assert.equal(item.tool, "refund_order");
  assert.equal(item.agent, "support");

  // The PDP down: the in-code rule (one approval, anyone with a link) applies, recorded.
  mode = "down";
  const fallback = await client.startRun({ agent: "support", input: "Refund order 42 for $120" });
  const fell = await client.waitFor(fallback.body.runId, isPending);
  assert.equal(fell.pending.data.approvers, undefined);
  assert.equal(fell.pending.policy, "fallback");
  assert.deepEqual(fell.pending.policyDecision, {
    id: "in-code",
    version: fell.agentVersion,
    decision: "ask",
    source: "fallback",
  });
  const metrics = await fetch(`${server.url}/metrics`).then((r) => r.text());
  assert.match(metrics, /toolnexus_policy_fallbacks_total\{policy="authzen"\} [1-9]/);
  assert.match(metrics, /toolnexus_policy_disagreements_total\{tool="refund_order"\} [1-9]/);
  // The log line (written by the thread's object; wrangler prints it when it gets to it).
  for (let i = 0; i < 50 && !/"code":"policy_fallback"/.test(server.output()); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.match(server.output(), /"code":"policy_fallback"/);
  assert.doesNotMatch(server.output(), RUNTIME_ERROR, server.tail());
});
