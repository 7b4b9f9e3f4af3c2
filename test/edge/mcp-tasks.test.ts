// MCP tasks (2025-11-25) over runs (src/edge/protocols/mcp-server/run-tasks.ts), driven by the
// MCP SDK's Client: a call with params.task returns a task whose id is the run id; tasks/get
// follows the run (input_required while the group decides, with who and the link);
// tasks/result gives the plain call's result once it is done; tasks/cancel cancels the run.
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { API_TOKEN, BASE, getRun, signedDecision } from "../helpers/edge";

const selfFetch: typeof fetch = (input, init) =>
  SELF.fetch(new Request(input as RequestInfo, init));

async function connect(user = "host@example.com") {
  const client = new Client({ name: "task-host", version: "1.0.0" }, { capabilities: {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      fetch: selfFetch,
      requestInit: {
        headers: { authorization: `Bearer ${API_TOKEN}`, "x-toolnexus-user": user },
      },
    }),
  );
  return client;
}

const startTask = (client: Client, prompt: string) =>
  client.request(
    {
      method: "tools/call",
      params: { name: "support", arguments: { prompt }, task: { ttl: 60_000 } },
    },
    CreateTaskResultSchema,
  );

const getTask = (client: Client, taskId: string) =>
  client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema);

async function until(client: Client, taskId: string, status: string) {
  for (let i = 0; i < 100; i++) {
    const task = await getTask(client, taskId);
    if (task.status === status) {
      return task;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`task ${taskId} never reached ${status}`);
}

const textOf = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? "").join("\n");

describe("MCP tasks over runs", () => {
  it("advertises task support on the server and on each agent tool", async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.tasks).toMatchObject({
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "support")?.execution).toEqual({ taskSupport: "optional" });
    await client.close();
  });

  it("a call needing the group is a task: input_required naming the group, then completed through tasks/result", async () => {
    const client = await connect();
    const { task } = await startTask(client, "refund $2000 on order 42");
    const run = await getRun(task.taskId);
    expect(run.runId).toBe(task.taskId);
    expect(run.requestedBy).toBe("host@example.com");
    const waiting = await until(client, task.taskId, "input_required");
    expect(waiting.statusMessage).toContain("pending");
    expect(waiting.statusMessage).toContain('group "finance"');
    const pending = (await getRun(task.taskId)).pending!;
    for (const member of ["bob@example.com", "carol@example.com"]) {
      await signedDecision({
        runId: task.taskId,
        requestId: pending.id,
        decision: "approve",
        decidedBy: member,
        argsHash: pending.argsHash,
      });
    }
    const result = await client.request(
      { method: "tasks/result", params: { taskId: task.taskId } },
      CallToolResultSchema,
    );
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain("Refunded $2000 on order 42");
    expect((await getTask(client, task.taskId)).status).toBe("completed");
    await client.close();
  });

  it("tasks/cancel cancels the run; an unknown task is an error", async () => {
    const client = await connect();
    const { task } = await startTask(client, "refund $2000 on order 42");
    await until(client, task.taskId, "input_required");
    const cancelled = await client.request(
      { method: "tasks/cancel", params: { taskId: task.taskId } },
      CancelTaskResultSchema,
    );
    expect(cancelled.status).toBe("cancelled");
    expect((await getRun(task.taskId)).status).toBe("cancelled");
    const unknown = await getTask(client, "th_nope.run_00000000000000000000").catch((e) => e);
    expect(String(unknown.message ?? unknown)).toMatch(/not found/i);
    await client.close();
  });

  it("tasks/cancel refuses another identity's task (issue 37): the run goes on", async () => {
    const host = await connect();
    const { task } = await startTask(host, "refund $2000 on order 42");
    await until(host, task.taskId, "input_required");
    for (const user of ["mallory@example.com", undefined]) {
      const other = user ? await connect(user) : await connectAnonymous();
      const refused = await other
        .request(
          { method: "tasks/cancel", params: { taskId: task.taskId } },
          CancelTaskResultSchema,
        )
        .catch((e) => e);
      expect(String(refused.message ?? refused)).toMatch(/another identity/);
      await other.close();
    }
    expect((await getRun(task.taskId)).status).toBe("pending");
    // Its requester may (emails compare case-insensitively).
    const again = await connect("HOST@example.com");
    const cancelled = await again.request(
      { method: "tasks/cancel", params: { taskId: task.taskId } },
      CancelTaskResultSchema,
    );
    expect(cancelled.status).toBe("cancelled");
    await again.close();
    await host.close();
  });
});

async function connectAnonymous() {
  const client = new Client({ name: "anonymous", version: "1.0.0" }, { capabilities: {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      fetch: selfFetch,
      requestInit: { headers: { authorization: `Bearer ${API_TOKEN}` } },
    }),
  );
  return client;
}
