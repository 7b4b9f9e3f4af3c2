/**
 * The MCP server at /mcp against the real worker under `wrangler dev` (workerd: the session
 * Durable Object, queues, alarms), driven by clients nobody here wrote: the MCP SDK's
 * `Client` over streamable HTTP, and `@modelcontextprotocol/inspector-cli` in CLI mode (a
 * separate process, as a developer would run it). tools/list; a call that elicits input and
 * finishes; a call that needs the finance group and returns pending (within 30 s, not an
 * error, with the run id and the approval link), finished through get_run after the group
 * decides by the signed webhook. And MCP 2026-07-28 with the official v2 client
 * (`@modelcontextprotocol/client`): `initialize` at either revision, input_required finished by
 * the client's retry, and the demo's $120 refund as a task that completes once approved.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
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

describe("MCP 2026-07-28: the v2 client and raw JSON-RPC", () => {
  const MODERN = "2026-07-28";
  const TASKS = "io.modelcontextprotocol/tasks";

  async function post(body, headers = {}) {
    const response = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${server.apiToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text);
  }

  const modern = (id, method, params, capabilities = {}) =>
    post(
      {
        jsonrpc: "2.0",
        id,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
          },
        },
      },
      {
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        "x-toolnexus-user": "host@example.com",
      },
    );

  test("initialize answers 2026-07-28 and 2025-11-25 as asked", { timeout: 30_000 }, () =>
    withServerLog(async () => {
      for (const protocolVersion of [MODERN, "2025-11-25"]) {
        const reply = await post({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
        });
        assert.equal(reply.result.protocolVersion, protocolVersion);
      }
    }),
  );

  test(
    "the v2 client negotiates 2026-07-28 and finishes a call that asks the caller",
    { timeout: 60_000 },
    () =>
      withServerLog(async () => {
        const client = new V2Client(
          { name: "v2-host", version: "1.0.0" },
          { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
        );
        client.setRequestHandler("elicitation/create", () => ({
          action: "accept",
          content: { answer: "1 Main St" },
        }));
        await client.connect(
          new V2Transport(new URL(`${server.url}/mcp`), {
            requestInit: {
              headers: {
                authorization: `Bearer ${server.apiToken}`,
                "x-toolnexus-user": "host@example.com",
              },
            },
          }),
        );
        assert.equal(client.getProtocolEra(), "modern");
        const result = await client.callTool({
          name: "support",
          arguments: { prompt: "update my address" },
        });
        assert.equal(result.isError, false);
        assert.match(textOf(result), /1 Main St/);
        await client.close();
      }),
  );

  test(
    "refund $120 is a task that completes after POST /v1/decisions approves",
    { timeout: 60_000 },
    () =>
      withServerLog(async () => {
        const capabilities = { extensions: { [TASKS]: {} } };
        const call = await modern(
          1,
          "tools/call",
          { name: "support", arguments: { prompt: "refund $120 on order 42" } },
          capabilities,
        );
        assert.equal(call.result.resultType, "task", JSON.stringify(call));
        const taskId = call.result.taskId;
        const pending = (await api.getRun(taskId)).pending;
        const vote = await api.decide({
          runId: taskId,
          requestId: pending.id,
          decision: "approve",
          decidedBy: "lead@example.com",
          argsHash: pending.argsHash,
        });
        assert.ok([200, 202].includes(vote.status), JSON.stringify(vote.body));
        await api.waitFor(taskId, isFinished);
        const done = await modern(2, "tasks/get", { taskId }, capabilities);
        assert.equal(done.result.status, "completed");
        assert.match(textOf(done.result.result), /Refunded \$120 on order 42/);
      }),
  );
});
