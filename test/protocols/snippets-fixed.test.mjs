/**
 * Issue 39 item 5: the corrected MCP inspector command and A2A client of docs/snippets-fixed.md,
 * extracted from that file and run exactly as written against the real worker under
 * `wrangler dev` — the shell block with bash (its port replaced by the server's, API_TOKEN in
 * the environment, from the repository's root as a user would), the JavaScript block as an ES
 * module with Node from the repository's root. Each must leave a run pending on finance.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { createClient } from "../../scripts/lib/api.mjs";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { ROOT } from "../../scripts/lib/dev-vars.mjs";

const run = promisify(execFile);
const HARD_LIMIT_MS = 150_000;
setTimeout(() => {
  console.error(`snippets-fixed.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

const DOC = readFileSync(path.join(ROOT, "docs/snippets-fixed.md"), "utf8");
/** The fenced blocks of one language, in order. */
const blocks = (lang) =>
  [...DOC.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((m) => m[1]);

let server;
let api;
before(
  async () => {
    server = await startDevServer({ timeoutMs: 90_000 });
    api = createClient({
      baseUrl: server.url,
      apiToken: server.apiToken,
      webhookSecret: server.webhookSecrets[0],
    });
  },
  { timeout: 100_000 },
);
after(() => server?.stop());

/** The snippet as written, pointed at this server's port instead of 8787. */
const onServer = (snippet) => snippet.replaceAll("http://127.0.0.1:8787", server.url);
const env = () => ({ ...process.env, API_TOKEN: server.apiToken, NO_COLOR: "1" });

async function withServerLog(fn) {
  try {
    return await fn();
  } catch (error) {
    error.message += `\n--- wrangler dev output (last lines) ---\n${server?.tail() ?? "(not started)"}`;
    throw error;
  }
}

test("the MCP inspector command runs as written: the refund is pending", { timeout: 60_000 }, () =>
  withServerLog(async () => {
    const [snippet] = blocks("sh");
    assert.ok(snippet?.includes("mcp-inspector-cli"), "docs/snippets-fixed.md has the sh block");
    const { stdout } = await run("bash", ["-euo", "pipefail", "-c", onServer(snippet)], {
      cwd: ROOT,
      env: env(),
      timeout: 50_000,
    });
    const text = JSON.parse(stdout)
      .content.map((c) => c.text)
      .join("\n");
    assert.match(text, /Run th_[a-f0-9]+\.run_[a-f0-9]{20} is pending/);
  }),
);

test("the A2A client runs as written: the task waits on finance", { timeout: 60_000 }, () =>
  withServerLog(async () => {
    const [snippet] = blocks("js");
    assert.ok(snippet?.includes("ClientFactory"), "docs/snippets-fixed.md has the js block");
    const child = run(process.execPath, ["--input-type=module", "-e", onServer(snippet)], {
      cwd: ROOT, // where `@a2a-js/sdk` resolves, as in a project that installed it
      env: env(),
      timeout: 50_000,
    });
    const { stdout } = await child;
    const [taskId, state] = stdout.trim().split(" ");
    assert.equal(state, "TASK_STATE_INPUT_REQUIRED");
    const pending = await api.getRun(taskId);
    assert.equal(pending.status, "pending");
    assert.equal(pending.pending.data?.approvers?.group, "finance");
  }),
);
