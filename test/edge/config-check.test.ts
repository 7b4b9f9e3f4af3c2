/**
 * Issue 39 item 3: everything any request may come to need is checked at the first request,
 * on every route (`/healthz` included), with a `config_error` that names the agent and tool
 * it belongs to — a sub-agent's tool named as the sub-agent's, not its parent's. A rule that
 * is a function of the arguments is known only when its request surfaces: its error names the
 * sub-agent too.
 */
import { describe, expect, it } from "vitest";
import { createExecutionContext, env, runInDurableObject } from "cloudflare:test";
import { createWorker } from "../../src/edge/create-worker";
import { createEdge } from "../../src/create-edge";
import { defineAgent } from "../../src/edge/agent";
import { defineTool } from "../../src/core/tools/define";
import { requireApproval } from "../../src/core/tools/approval";
import { supportAgent } from "../../src/edge/demo/agent";
import { askingAgentOf } from "../../src/edge/agents/asked-by";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import type { RunView } from "../../src/edge/protocol";
import { BASE } from "../helpers/edge";
import { threadStub } from "../helpers/durable";

type Rules = { group: string };

/** `desk` delegates refunds to its team member `billing`, whose `refund` tool has approver rules. */
function team(rules: Rules | (() => Rules)) {
  const refund = requireApproval(
    defineTool({ name: "refund", description: "Refund", run: () => "refunded" }),
    { approvers: rules },
  );
  const billing = defineAgent({
    name: "billing",
    description: "Refunds",
    systemPrompt: "b",
    tools: [refund],
    demoModel: (request) =>
      request.messages.at(-1)?.role === "user"
        ? { toolCalls: [{ name: "refund", arguments: {} }] }
        : { content: "billing done" },
  });
  const desk = defineAgent({
    name: "desk",
    description: "Front desk",
    systemPrompt: "d",
    tools: [],
    team: ["billing"],
    demoModel: (request) =>
      request.messages.at(-1)?.role === "user"
        ? { toolCalls: [{ name: "task", arguments: { agent: "billing", prompt: "refund" } }] }
        : { content: "desk done" },
  });
  return [desk, billing];
}

async function call(
  worker: ReturnType<typeof createWorker>,
  path: string,
  environment: unknown,
  init?: RequestInit,
) {
  const response = await worker.fetch(
    new Request(`https://edge.test${path}`, init) as never,
    environment as never,
    createExecutionContext(),
  );
  return {
    status: response.status,
    body: (await response.json()) as { error?: { code: string; message: string } },
  };
}

const startRun = {
  method: "POST",
  headers: { authorization: "Bearer test-token", "content-type": "application/json" },
  body: JSON.stringify({ agent: "support", input: "Refund order 42 for $120" }),
};

describe("checked at the first request, on every route", () => {
  it("a missing RECEIPTS binding fails /healthz and POST /v1/runs, before any run starts", async () => {
    const worker = createWorker({ agents: [supportAgent] });
    const broken = { ...env, RECEIPTS: undefined };
    for (const [path, init] of [
      ["/healthz", undefined],
      ["/v1/runs", startRun],
    ] as const) {
      const { status, body } = await call(worker, path, broken, init);
      expect(status).toBe(500);
      expect(body.error?.code).toBe("config_error");
      expect(body.error?.message).toMatch(/^RECEIPTS is not bound/);
    }
  });

  it("a missing RECEIPT_KEY (every decision signs a receipt) fails /healthz", async () => {
    const worker = createWorker({ agents: [supportAgent] });
    const { status, body } = await call(worker, "/healthz", { ...env, RECEIPT_KEY: undefined });
    expect(status).toBe(500);
    expect(body.error?.code).toBe("config_error");
    expect(body.error?.message).toMatch(/^RECEIPT_KEY is not set/);
  });

  it("a sub-agent's tool rule naming an undefined group: the sub-agent and its tool are named", async () => {
    const worker = createWorker({ agents: team({ group: "finnace" }) });
    for (const path of ["/healthz", "/v1/agents"]) {
      const { status, body } = await call(worker, path, env, {
        headers: { authorization: "Bearer test-token" },
      });
      expect(status).toBe(500);
      expect(body.error?.code).toBe("config_error");
      expect(body.error?.message).toBe(
        'agent "billing", tool "refund": approver group "finnace" is not defined (define it in APPROVER_GROUPS or createEdge({ approverGroups }))',
      );
    }
  });

  it("the same team with a defined group is served", async () => {
    const worker = createWorker({ agents: team({ group: "finance" }) });
    expect((await call(worker, "/healthz", env)).status).toBe(200);
  });
});

describe("rules that depend on the arguments", () => {
  it("an undefined group surfaces with the request, and every vote's error names the sub-agent", async () => {
    const edge = createEdge({ agents: team(() => ({ group: "finnace" })) });
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const queue = { send: async () => {}, sendBatch: async () => {} };
    await runInDurableObject(threadStub(threadId), async (_instance, state) => {
      const object = new edge.ThreadObject(state, {
        ...env,
        RESUME_QUEUE: queue,
        NOTIFY_QUEUE: queue,
      });
      await object.start({ runId, threadId, agent: "desk", input: "refund", publicUrl: BASE });
      await object.drive(runId);
      const view = (await object.getRun(runId, {})) as RunView;
      expect(view.pending?.data?.path).toEqual(["root", "desk.1", "billing.1"]); // segments (issue 40)
      const errors = state.storage.sql
        .exec("SELECT data FROM events WHERE run_id = ? AND type = 'error'", runId)
        .toArray()
        .map((row) => String(JSON.parse(String(row.data)).message));
      expect(errors).toEqual([expect.stringContaining('agent "billing", tool "refund"')]);
      const vote = await object.decide({
        runId,
        requestId: view.pending!.id,
        decision: "approve",
        decidedBy: "ann@example.com",
        channel: "webhook",
      });
      expect(vote).toEqual({
        ok: false,
        code: "config_error",
        message:
          'agent "billing", tool "refund": approver group "finnace" is not defined (define it in APPROVER_GROUPS or createEdge({ approverGroups }))',
      });
      await state.storage.deleteAlarm();
    });
  });

  it("askingAgentOf: the last handle of a sub-agent's path, else the run's agent", () => {
    expect(askingAgentOf({ data: { path: "root/desk.1/billing.2" } }, "desk")).toBe("billing");
    expect(askingAgentOf({ data: { path: "root/desk.1" } }, "desk")).toBe("desk");
    expect(askingAgentOf({}, "desk")).toBe("desk");
  });
});
