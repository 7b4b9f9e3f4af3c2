/**
 * The MCP server at /mcp against the real worker under `wrangler dev` (workerd: the session
 * Durable Object, queues, alarms), driven by clients nobody here wrote: the MCP SDK's
 * `Client` over streamable HTTP, and `@modelcontextprotocol/inspector-cli` in CLI mode (a
 * separate process, as a developer would run it). tools/list; a call that elicits input and
 * finishes; a call that needs the finance group and returns pending (within 30 s, not an
 * error, with the run id and the approval link), finished through get_run after the group
 * decides by the signed webhook.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createClient, isFinished } from "../../scripts/lib/api.mjs";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { ROOT } from "../../scripts/lib/dev-vars.mjs";

const run = promisify(execFile);
const INSPECTOR = path.join(ROOT, "node_modules/@modelcontextprotocol/inspector-cli/build/cli.js");

const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`mcp-hosts.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

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

async function withServerLog(fn) {
  try {
    return await fn();
  } catch (error) {
    error.message += `\n--- wrangler dev output (last lines) ---\n${server?.tail() ?? "(not started)"}`;
    throw error;
  }
}

async function connect({ user, elicit } = {}) {
  const client = new Client(
    { name: "node-host", version: "1.0.0" },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  const asked = [];
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: elicit(request.params) };
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: {
      headers: {
        authorization: `Bearer ${server.apiToken}`,
        ...(user ? { "x-toolnexus-user": user } : {}),
      },
    },
  });
  await client.connect(transport);
  return { client, asked };
}

const textOf = (result) => result.content.map((c) => c.text).join("\n");
const runIdOf = (text) => /Run (th_[a-f0-9]+\.run_[a-f0-9]{20})/.exec(text)?.[1];

/** Approves a run's pending finance request with both members' signed webhooks. */
async function financeApproves(runId) {
  const pending = (await api.getRun(runId)).pending;
  for (const member of ["ann@example.com", "bob@example.com"]) {
    const vote = await api.decide({
      runId,
      requestId: pending.id,
      decision: "approve",
      decidedBy: member,
      argsHash: pending.argsHash,
    });
    assert.ok([200, 202].includes(vote.status), JSON.stringify(vote.body));
  }
  return api.waitFor(runId, isFinished);
}

/** The inspector CLI in CLI mode: one method per process, JSON on stdout. */
async function inspector(...args) {
  const { stdout } = await run(
    process.execPath,
    [
      INSPECTOR,
      "--cli",
      `${server.url}/mcp`,
      "--transport",
      "http",
      "--header",
      `Authorization: Bearer ${server.apiToken}`,
      ...args,
    ],
    // The CLI looks for a package.json one folder above its working directory but imports
    // it relative to its own file: run it from a folder whose parent has one (the repository).
    { timeout: 60_000, cwd: path.join(ROOT, "test"), env: { ...process.env, NO_COLOR: "1" } },
  );
  return JSON.parse(stdout);
}

describe("the MCP SDK's Client", () => {
  test("lists each agent as a tool, plus get_run", { timeout: 30_000 }, () =>
    withServerLog(async () => {
      const { client } = await connect();
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ["support", "coordinator", "lookup", "refunds", "get_run"],
      );
      await client.close();
    }),
  );

  test("a call that elicits input, answered, finishes", { timeout: 60_000 }, () =>
    withServerLog(async () => {
      const { client, asked } = await connect({
        user: "host@example.com",
        elicit: () => ({ answer: "1 Main St" }),
      });
      const result = await client.callTool({
        name: "support",
        arguments: { prompt: "update my address" },
      });
      assert.deepEqual(asked, ["What is your new shipping address?"]);
      assert.equal(result.isError, false);
      assert.match(textOf(result), /1 Main St/);
      await client.close();
    }),
  );

  test(
    "a call the finance group decides returns pending within 30 s, then get_run has the answer",
    { timeout: 60_000 },
    () =>
      withServerLog(async () => {
        const { client } = await connect({ user: "host@example.com", elicit: () => ({}) });
        const started = Date.now();
        const result = await client.callTool({
          name: "support",
          arguments: { prompt: "refund $2000 on order 42" },
        });
        assert.ok(Date.now() - started < 30_000);
        assert.equal(result.isError, false);
        const text = textOf(result);
        assert.match(text, /pending/);
        assert.match(text, /group "finance"/);
        assert.match(text, new RegExp(`${server.url.replace(/[.]/g, "\\.")}/approve/\\S+`));
        const runId = runIdOf(text);
        assert.ok(runId, text);
        const done = await financeApproves(runId);
        assert.equal(done.status, "done");
        const later = await client.callTool({ name: "get_run", arguments: { runId } });
        assert.equal(later.isError, false);
        assert.match(textOf(later), /Refunded \$2000 on order 42/);
        assert.equal(later.structuredContent.status, "done");
        await client.close();
      }),
  );
});

describe("@modelcontextprotocol/inspector-cli (CLI mode)", () => {
  test("tools/list", { timeout: 60_000 }, () =>
    withServerLog(async () => {
      const listed = await inspector("--method", "tools/list");
      assert.deepEqual(
        listed.tools.map((t) => t.name),
        ["support", "coordinator", "lookup", "refunds", "get_run"],
      );
    }),
  );

  test("tools/call: a plain call finishes with the answer", { timeout: 60_000 }, () =>
    withServerLog(async () => {
      const result = await inspector(
        "--method",
        "tools/call",
        "--tool-name",
        "support",
        "--tool-arg",
        "prompt=where is order 42",
      );
      assert.equal(result.isError, false);
      assert.match(textOf(result), /Order 42 is shipped/);
    }),
  );

  test(
    "tools/call: pending for the group (the CLI cannot elicit), then get_run after the group decides",
    { timeout: 90_000 },
    () =>
      withServerLog(async () => {
        const pending = await inspector(
          "--method",
          "tools/call",
          "--tool-name",
          "support",
          "--tool-arg",
          "prompt=refund $2000 on order 42",
        );
        assert.equal(pending.isError, false);
        const text = textOf(pending);
        assert.match(text, /pending/);
        assert.match(text, /\/approve\//);
        const runId = runIdOf(text);
        assert.ok(runId, text);
        await financeApproves(runId);
        const later = await inspector(
          "--method",
          "tools/call",
          "--tool-name",
          "get_run",
          "--tool-arg",
          `runId=${runId}`,
        );
        assert.equal(later.isError, false);
        assert.match(textOf(later), /Refunded \$2000 on order 42/);
      }),
  );
});
