/**
 * The starter's own test (`<dir>/test/refund.test.mjs`, its `npm test`): Node's test runner, no other
 * dependency. It starts the worker under `wrangler dev` with the project's .dev.vars, asks
 * desk for a refund, sees the run suspend on billing's approval, approves it with a signed
 * webhook, and sees the run finish with the refund done.
 */
export const STARTER_TEST = `/**
 * The whole path of a run, against the worker under \`wrangler dev\` (with this project's
 * .dev.vars): desk hands a refund to billing, the run suspends on the refund's approval, a
 * signed decision (POST /v1/decisions) approves it, and the run finishes with the refund done.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { createApiClient } from "toolnexus-edge/client";

const ROOT = path.resolve(import.meta.dirname, "..");
const vars = Object.fromEntries(
  readFileSync(path.join(ROOT, ".dev.vars"), "utf8")
    .split("\\n")
    .map((line) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim()))
    .filter(Boolean)
    .map(([, name, value]) => [name, value.replace(/^(['"])(.*)\\1$/, "$2")]),
);

let wrangler;
let base;
const state = mkdtempSync(path.join(tmpdir(), "starter-state-"));

/** A port nobody listens on now. */
function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

before(async () => {
  const port = await freePort();
  base = \`http://127.0.0.1:\${port}\`;
  const bin = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", state];
  args.push("--inspector-port", String(await freePort()), "--show-interactive-dev-session=false");
  wrangler = spawn(process.execPath, [bin, ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
  });
  let output = "";
  wrangler.stdout.on("data", (chunk) => (output += chunk));
  wrangler.stderr.on("data", (chunk) => (output += chunk));
  const deadline = Date.now() + 90_000;
  for (;;) {
    assert.equal(wrangler.exitCode, null, \`wrangler dev exited:\\n\${output}\`);
    assert.ok(Date.now() < deadline, \`wrangler dev did not start within 90 s:\\n\${output}\`);
    const ok = await fetch(\`\${base}/healthz\`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
});

after(() => {
  if (wrangler && wrangler.exitCode === null) process.kill(-wrangler.pid, "SIGTERM");
  rmSync(state, { recursive: true, force: true });
});

test("a refund waits for approval, is approved by signed webhook, and the run finishes", async () => {
  const api = createApiClient({ baseUrl: base, token: vars.API_TOKEN });
  const { runId } = await api.runs.start({ agent: "desk", input: "Refund $120 on order 42" });

  // The events replay the run and stop being sent while it waits: read up to the request.
  let request;
  for await (const event of api.runs.events(runId)) {
    if (event.event === "pending") {
      request = event.data.request;
      break;
    }
  }
  assert.equal(request?.prompt, "Refund $120 on order 42?");

  const accepted = await api.decisions.send(vars.WEBHOOK_SECRET, {
    runId,
    requestId: request.id,
    decision: "approve",
    decidedBy: "ann@example.com",
  });
  assert.equal(accepted.duplicate, false);

  for await (const event of api.runs.events(runId)) {
    if (event.event === "done" || event.event === "error") break;
  }
  const run = await api.runs.get(runId);
  assert.equal(run.status, "done");
  assert.equal(run.text, "billing says: Refunded $120 on order 42");
});
`;
