/**
 * Issue 30 under `wrangler dev`: runs suspended under one deploy of an agent are decided under
 * the next. Deploy A (test/fixtures/versions/worker-a.ts) suspends six runs and decides two;
 * wrangler stops, and starts again with deploy B (worker-b.ts) on the same persisted state,
 * with WEBHOOK_SECRET and RECEIPT_KEY rotated (the new key first, the old one kept). Under B:
 * a compatible change continues, an approval of a removed tool or of arguments the schema now
 * rejects declines the request with reason agent_changed (recorded; answered `409
 * agent_changed` saying so) and the run goes on, a migration function changes
 * the arguments the tool runs with, and a migration whose rule needs two of finance asks them
 * again (the old request `409 request_not_pending`); links signed before the rotation still work; the receipts
 * of both deploys verify with the package's CLI and with `jose` against the JWKS, and the CLI
 * refuses an export with a line edited, dropped or moved.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { build } from "esbuild";
import { compactVerify, createLocalJWKSet } from "jose";
import { createClient, isFinished, isPending } from "../../scripts/lib/api.mjs";
import { startDevServer, TEST_VARS } from "../../scripts/lib/dev-server.mjs";
import { webhookHeaders } from "../../scripts/lib/webhooks.mjs";

const HARD_LIMIT_MS = 240_000;
setTimeout(() => {
  console.error(`agent-versions.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

const ROOT = path.resolve(import.meta.dirname, "../..");
const FIXTURE = path.join(ROOT, "test/fixtures/versions");
const dir = mkdtempSync(path.join(tmpdir(), "agent-versions-"));
// Both deploys start on this directory: the second finds the first one's objects and queues.
const stateDir = path.join(dir, "state");

const OLD_SECRET = TEST_VARS.WEBHOOK_SECRET;
const NEW_SECRET = `whsec_${Buffer.from("rotated-in webhook secret, test only!").toString("base64")}`;
const OLD_RECEIPT_KEY = TEST_VARS.RECEIPT_KEY;
const NEW_RECEIPT_KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => 200 - i)).toString(
  "base64",
);

let server;
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function start(script, vars) {
  await server?.stop();
  server = await startDevServer({
    timeoutMs: 90_000,
    config: path.join(FIXTURE, "wrangler.toml"),
    script: path.join(FIXTURE, script),
    stateDir,
    vars: { ...TEST_VARS, ...vars },
  });
  return createClient({
    baseUrl: server.url,
    apiToken: server.apiToken,
    webhookSecret: server.webhookSecrets[0],
  });
}

const call = (tool, args) => `call ${tool} ${JSON.stringify(args)}`;

/** Starts a run calling `tool` with `args` (in `threadId`, when given) and waits until it is pending. */
async function suspend(client, { tool, args, threadId }) {
  const { body } = await client.startRun({
    agent: "ops",
    input: call(tool, args),
    ...(threadId ? { threadId } : {}),
  });
  const run = await client.waitFor(body.runId, isPending);
  return { runId: body.runId, threadId: body.threadId, requestId: run.pending.id, run };
}

const decide = (client, { runId, requestId }, { decision = "approve", expect = [202] } = {}) =>
  client.decide({ runId, requestId, decision }, { expect });

async function version(client) {
  const { body } = await client.agents();
  return body.agents.find((a) => a.name === "ops");
}

/** What deploy A left behind, for deploy B's tests. */
const a = {};

test("deploy A: runs suspend under version A; two are decided there", {
  timeout: 120_000,
}, async () => {
  const client = await start("worker-a.ts", {});
  a.agent = await version(client);
  // One thread with two decided runs (so its chain has receipts before the rotation) and a third later.
  const first = await suspend(client, { tool: "refund", args: { orderId: "1", amount: 10 } });
  await decide(client, first);
  await client.waitFor(first.runId, isFinished);
  const second = await suspend(client, {
    tool: "refund",
    args: { orderId: "2", amount: 20 },
    threadId: first.threadId,
  });
  await decide(client, second, { decision: "decline" });
  await client.waitFor(second.runId, isFinished);
  a.chain = first.threadId;
  a.refund = await suspend(client, { tool: "refund", args: { orderId: "3", amount: 30 } });
  a.wipe = await suspend(client, { tool: "wipe", args: { cache: "eu" } });
  a.transfer = await suspend(client, { tool: "transfer", args: { amount: 500 } });
  a.charge = await suspend(client, { tool: "charge", args: { amount: 12.5 } });
  a.linked = await suspend(client, { tool: "refund", args: { orderId: "4", amount: 40 } });
  a.payout = await suspend(client, { tool: "payout", args: { amount: 40 } });
  for (const run of [a.refund, a.wipe, a.transfer, a.charge, a.linked, a.payout]) {
    assert.equal(run.run.agentVersion, a.agent.version);
  }
  assert.equal(a.payout.run.pending.data.approvers, undefined, "under A anyone may approve");
  assert.deepEqual(
    await eventually(async () => (await version(client)).pendingByVersion, {
      [a.agent.version]: 6,
    }),
    { [a.agent.version]: 6 },
  );
  a.approvalUrl = (await client.getRun(a.linked.runId)).approvalUrl;
  assert.match(a.approvalUrl, /\/approve\//);
  a.signIn = (await client.approverLink("ann@example.com")).url;
  const signedIn = await fetch(a.signIn, { redirect: "manual" });
  assert.equal(signedIn.status, 303);
  a.cookie = signedIn.headers.get("set-cookie")?.split(";")[0];
  assert.ok(a.cookie, "the sign-in link sets a session cookie");
  a.jwks = await (await fetch(`${server.url}/.well-known/receipt-keys.json`)).json();
  assert.equal(a.jwks.keys.length, 1);
});

let b;
/** Deploy B's version of `ops`. */
let versionB;

test("deploy B, keys rotated: the agent is another version", { timeout: 120_000 }, async () => {
  b = await start("worker-b.ts", {
    WEBHOOK_SECRET: `${NEW_SECRET} ${OLD_SECRET}`,
    RECEIPT_KEY: `${NEW_RECEIPT_KEY} ${OLD_RECEIPT_KEY}`,
  });
  const agent = await version(b);
  assert.notEqual(agent.version, a.agent.version);
  // The six runs still wait under the version they suspended under, not the one deployed now.
  assert.deepEqual(agent.pendingByVersion, { [a.agent.version]: 6 });
  versionB = agent.version;
  assert.equal((await b.getRun(a.refund.runId)).agentVersion, a.agent.version);
});

test("a compatible change continues: the tool runs with the stored arguments", async () => {
  await decide(b, a.refund);
  const run = await b.waitFor(a.refund.runId, isFinished);
  assert.equal(run.status, "done");
  assert.equal(run.text, "result: refunded 30 on 3");
});

test("a removed tool and a rejecting schema: the approval declines the request with reason agent_changed (409 saying so), recorded, and the run goes on", async () => {
  for (const [suspended, what] of [
    [a.wipe, /the tool wipe no longer exists/],
    [a.transfer, /the input schema of transfer rejects the arguments/],
  ]) {
    const refused = await decide(b, suspended, { decision: "approve", expect: [409] });
    assert.equal(refused.body.error.code, "agent_changed");
    assert.match(refused.body.error.message, what);
    assert.match(refused.body.error.message, /is declined with this reason instead \(recorded\)/);
    const done = await b.waitFor(suspended.runId, isFinished);
    assert.equal(done.status, "done");
    assert.match(done.text, /^result: declined/);
    assert.equal(done.decisions.length, 1);
    assert.equal(done.decisions[0].decision, "decline");
    assert.equal(done.decisions[0].channel, "version");
    assert.equal(done.receiptCount, 1);
    // Declined once: a later decision finds it settled.
    await decide(b, suspended, { decision: "decline", expect: [409] });
  }
});

test("a migration function: the tool runs with the migrated arguments, which the receipt hashes", async () => {
  await decide(b, a.charge);
  const run = await b.waitFor(a.charge.runId, isFinished);
  // The tool's result, after the line with which the edge tells the model of other arguments.
  assert.match(run.text, /\ncharged 1250 cents$/);
  const receipts = await runReceipts(b, a.charge.runId);
  assert.equal(receipts.length, 1);
  const payload = payloadOf(receipts[0]);
  assert.equal(payload.decision, "approved");
  assert.equal(payload.agentVersion, a.agent.version);
  assert.equal(payload.argsHash, argsHash({ cents: 1250 }));
});

test("a migration whose rule needs other approvers: asked again of finance, the old request refused", async () => {
  const next = `${a.payout.requestId}_ask2`;
  const refused = await decide(b, a.payout, { decision: "approve", expect: [409] });
  assert.equal(refused.body.error.code, "request_not_pending");
  assert.match(refused.body.error.message, new RegExp(`decide ${next}$`));
  const asked = await b.getRun(a.payout.runId);
  assert.equal(asked.status, "pending");
  assert.equal(asked.pending.id, next);
  assert.deepEqual(asked.pending.data.args, { amount: 40, currency: "USD" });
  assert.deepEqual(asked.pending.data.approvers, { group: "finance", quorum: 2 });
  assert.equal(asked.pending.data.supersedes, a.payout.requestId);
  assert.equal(asked.agentVersion, versionB);
  // The old id stays refused, whatever is sent for it.
  assert.equal(
    (await decide(b, a.payout, { decision: "decline", expect: [409] })).body.error.code,
    "request_not_pending",
  );
  for (const decidedBy of ["ann@example.com", "bob@example.com"]) {
    await b.decide(
      { runId: a.payout.runId, requestId: next, decision: "approve", decidedBy },
      {
        expect: [202],
      },
    );
  }
  const run = await b.waitFor(a.payout.runId, isFinished);
  assert.equal(run.status, "done");
  assert.match(run.text, /\npaid 40 USD$/);
  const receipts = (await runReceipts(b, a.payout.runId)).map(payloadOf);
  assert.deepEqual(
    receipts.map((r) => [r.requestId, r.decision, r.channel]),
    [
      [a.payout.requestId, "cancelled", "version"],
      [next, "approved", "webhook"],
    ],
  );
  assert.equal(receipts[0].agentVersion, a.agent.version);
  assert.equal(receipts[1].agentVersion, versionB);
  assert.equal(receipts[1].argsHash, argsHash({ amount: 40, currency: "USD" }));
  assert.deepEqual(
    receipts[1].votes.map((v) => v.decidedBy),
    ["ann@example.com", "bob"],
  );
});

test("WEBHOOK_SECRET rotated: the old secret's webhook, approval link and inbox sign-in still work", async () => {
  // A decision signed with the old secret, kept second.
  const body = JSON.stringify({
    runId: a.linked.runId,
    requestId: a.linked.requestId,
    decision: "approve",
  });
  const page = await fetch(here(a.approvalUrl));
  assert.equal(page.status, 200, "the approval link minted before the rotation renders");
  assert.match(await page.text(), /refund/);
  const oldSigned = await fetch(`${server.url}/v1/decisions`, {
    method: "POST",
    headers: webhookHeaders(OLD_SECRET, body),
    body,
  });
  assert.equal(oldSigned.status, 202);
  assert.equal((await b.waitFor(a.linked.runId, isFinished)).status, "done");
  // The sign-in link and the session cookie minted under the old secret.
  const signedIn = await fetch(here(a.signIn), { redirect: "manual" });
  assert.equal(signedIn.status, 303);
  const inbox = await fetch(`${server.url}/inbox`, { headers: { cookie: a.cookie } });
  assert.equal(inbox.status, 200);
  assert.match(await inbox.text(), /ann@example\.com/);
});

/** Filled by the receipts test: the export and the keys, for the CLI and jose. */
const exported = {};

test("RECEIPT_KEY rotated: the JWKS keeps the old key; every receipt verifies with jose", async () => {
  // The chained thread's third run, signed under the new key.
  const third = await suspend(b, {
    tool: "refund",
    args: { orderId: "5", amount: 50 },
    threadId: a.chain,
  });
  await decide(b, third);
  await b.waitFor(third.runId, isFinished);
  exported.chainRun = third.runId;
  const jwks = await (await fetch(`${server.url}/.well-known/receipt-keys.json`)).json();
  assert.equal(jwks.keys.length, 2);
  assert.ok(
    jwks.keys.some((k) => k.kid === a.jwks.keys[0].kid),
    "the old key is still published",
  );
  const response = await fetch(`${server.url}/v1/receipts?limit=1000`, {
    headers: { authorization: `Bearer ${server.apiToken}` },
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /application\/x-ndjson/);
  const lines = (await response.text()).split("\n").filter(Boolean);
  const receipts = lines.map((line) => JSON.parse(line));
  const kids = new Set();
  const keySet = createLocalJWKSet(jwks);
  for (const jws of receipts) {
    const { payload, protectedHeader } = await compactVerify(jws, keySet);
    assert.equal(protectedHeader.alg, "EdDSA");
    kids.add(protectedHeader.kid);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(payload)), payloadOf(jws));
  }
  assert.equal(kids.size, 2, "receipts signed before and after the rotation");
  const chain = receipts.map(payloadOf).filter((r) => r.threadId === a.chain);
  assert.deepEqual(
    chain.map((r) => [r.seq, r.decision]),
    [
      [1, "approved"],
      [2, "declined"],
      [3, "approved"],
    ],
  );
  Object.assign(exported, { lines, jwks });
});

test("verify-receipts on the real exports: accepts them, refuses an edited, a dropped and a moved line", async () => {
  const bin = path.join(dir, "toolnexus-edge.mjs");
  await build({
    entryPoints: [path.join(ROOT, "src/cli/bin.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: bin,
    logLevel: "silent",
  });
  const keysUrl = `${server.url}/.well-known/receipt-keys.json`;
  const verify = async (name, text, ...extra) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return run(bin, [file, "--keys", keysUrl, ...extra]);
  };
  const { lines } = exported;
  const ok = await verify("all.ndjson", `${lines.join("\n")}\n`);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, new RegExp(`ok: ${lines.length} receipts in \\d+ threads verified`));

  const perRun = await fetch(`${server.url}/v1/runs/${exported.chainRun}/receipts`, {
    headers: { authorization: `Bearer ${server.apiToken}` },
  });
  const runJson = await perRun.json();
  const runOk = await verify("run.json", JSON.stringify(runJson), "--expect-count", "1");
  assert.equal(runOk.code, 0, runOk.stderr);

  const at = lines.map(payloadOf).map((r, i) => ({ ...r, i }));
  const chain = at.filter((r) => r.threadId === a.chain);
  const [, middle, last] = chain;
  // Edited: the middle receipt's payload says approved, under its old signature.
  const edited = [...lines];
  edited[middle.i] = JSON.stringify(reencoded(lines[middle.i], { decision: "approved" }));
  const tampered = await verify("edited.ndjson", edited.join("\n"));
  assert.equal(tampered.code, 1);
  assert.match(tampered.stderr + tampered.stdout, new RegExp(`line ${middle.i + 1}\\b`));
  // Dropped: the middle receipt of the three.
  const dropped = await verify("dropped.ndjson", lines.filter((_, i) => i !== middle.i).join("\n"));
  assert.equal(dropped.code, 1);
  assert.match(dropped.stderr + dropped.stdout, /seq 3 after seq 1/);
  // Moved: the last one before the middle one.
  const moved = [...lines];
  moved[middle.i] = lines[last.i];
  moved[last.i] = lines[middle.i];
  const reordered = await verify("moved.ndjson", moved.join("\n"));
  assert.equal(reordered.code, 1);
  assert.match(reordered.stderr + reordered.stdout, /seq 3 after seq 1/);
});

/** Polls `read` until it deep-equals `want` (counts follow a delivery), at most 10 s; the last value. */
async function eventually(read, want) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    try {
      assert.deepEqual(value, want);
      return value;
    } catch {
      if (Date.now() > deadline) {
        return value;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A link minted by deploy A's server, on the server running now (another port). */
function here(url) {
  const { pathname, search } = new URL(url);
  return `${server.url}${pathname}${search}`;
}

function run(bin, args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, "verify-receipts", ...args], (error, stdout, stderr) => {
      resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function runReceipts(client, runId) {
  const response = await fetch(`${client.baseUrl}/v1/runs/${runId}/receipts`, {
    headers: { authorization: `Bearer ${server.apiToken}` },
  });
  return (await response.json()).receipts;
}

function payloadOf(jws) {
  return JSON.parse(Buffer.from(jws.split(".")[1], "base64url").toString("utf8"));
}

/** The JWS with its payload changed by `change` and its signature kept (so it must not verify). */
function reencoded(jws, change) {
  const [header, , signature] = jws.split(".");
  const payload = Buffer.from(JSON.stringify({ ...payloadOf(jws), ...change })).toString(
    "base64url",
  );
  return `${header}.${payload}.${signature}`;
}

/** The four-eyes issue's argsHash: base64url SHA-256 of the canonical JSON (sorted keys). */
function argsHash(args) {
  const canonical = (value) =>
    Array.isArray(value)
      ? `[${value.map(canonical).join(",")}]`
      : value && typeof value === "object"
        ? `{${Object.keys(value)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
            .join(",")}}`
        : JSON.stringify(value);
  return createHash("sha256").update(canonical(args)).digest("base64url");
}
