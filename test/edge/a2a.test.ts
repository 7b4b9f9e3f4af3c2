// A2A inbound at the edge (src/edge/protocols/a2a): the open agent card, auth, JSON-RPC
// errors, and tasks over runs — answered by their caller when the request has no rules,
// refused (naming the group, nothing written) when it does.
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { API_TOKEN, BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";

let seq = 0;
async function rpc(method: string, params: unknown, headers: Record<string, string> = {}) {
  const response = await SELF.fetch(`${BASE}/a2a`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${API_TOKEN}`,
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++seq, method, params }),
  });
  expect(response.status).toBe(200);
  return response.json<any>();
}

const message = (text: string, extra: Record<string, unknown> = {}) => ({
  message: {
    kind: "message",
    role: "user",
    messageId: crypto.randomUUID(),
    parts: [{ kind: "text", text }],
    ...extra,
  },
});

const decision = (taskId: string, data: Record<string, unknown>) => ({
  message: {
    kind: "message",
    role: "user",
    messageId: crypto.randomUUID(),
    taskId,
    parts: [{ kind: "data", data }],
  },
});

describe("A2A agent card and auth", () => {
  it("serves the card without a token, listing each agent as a skill", async () => {
    const response = await SELF.fetch(`${BASE}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    const card = await response.json<any>();
    expect(card.protocolVersion).toBe("0.3.0");
    expect(card.url).toBe(`${BASE}/a2a`);
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual([
      "support",
      "coordinator",
      "lookup",
      "refunds",
    ]);
    expect(card.securitySchemes.apiToken).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("refuses /a2a without the token (401)", async () => {
    const response = await SELF.fetch(`${BASE}/a2a`, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } }),
    });
    expect(response.status).toBe(401);
  });
});

describe("A2A JSON-RPC errors", () => {
  it("answers a parse error, an unknown method, an unknown task and an unknown skill with A2A codes", async () => {
    const parse = await SELF.fetch(`${BASE}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}` },
      body: "{not json",
    });
    expect((await parse.json<any>()).error.code).toBe(-32700);
    expect((await rpc("tasks/frobnicate", {})).error.code).toBe(-32601);
    expect((await rpc("tasks/get", { id: "th_nope.run_00000000000000000000" })).error.code).toBe(
      -32001,
    );
    expect((await rpc("GetTask", { id: "made-up" })).error.code).toBe(-32001);
    const unknownSkill = await rpc(
      "message/send",
      message("hello", { metadata: { skill: "nobody" } }),
    );
    expect(unknownSkill.error).toMatchObject({ code: -32602 });
    expect(unknownSkill.error.message).toContain("support");
    const noJsonRpc = await SELF.fetch(`${BASE}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}` },
      body: JSON.stringify({ id: 1, method: "tasks/get" }),
    });
    expect((await noJsonRpc.json<any>()).error.code).toBe(-32600);
  });

  it("refuses a body over 1 MiB with 413", async () => {
    const response = await SELF.fetch(`${BASE}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}` },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: message("x".repeat(1024 * 1024)),
      }),
    });
    expect(response.status).toBe(413);
  });
});

describe("A2A tasks over runs", () => {
  it("completes a task (blocking send), under both method spellings", async () => {
    for (const method of ["message/send", "SendMessage"]) {
      const { result } = await rpc(method, message("where is order 42"));
      expect(result.kind).toBe("task");
      expect(result.metadata.runId).toBe(result.id);
      expect(result.status.state).toBe("completed");
      expect(result.artifacts[0].parts[0].text).toContain("42");
      const got = await rpc("tasks/get", { id: result.id });
      expect(got.result.status.state).toBe("completed");
    }
  });

  it("lets the caller answer a request without rules, once; a second answer is refused", async () => {
    const headers = { "x-toolnexus-user": "caller@example.com" };
    const { result: task } = await rpc("message/send", message("refund $80 on order 42"), headers);
    expect(task.status.state).toBe("input-required");
    const part = task.status.message.parts.find((p: { kind: string }) => p.kind === "data").data;
    expect(part).toMatchObject({
      kind: "approval",
      tool: "refund_order",
      args: { orderId: "42", amount: 80 },
      decidedBy: { caller: true },
    });
    expect(part.argsHash).toBe((await getRun(task.id)).pending?.argsHash);
    // Another identity may not message this task.
    const stranger = await rpc(
      "message/send",
      decision(task.id, { requestId: part.id, decision: "approve" }),
      {
        "x-toolnexus-user": "someone@example.com",
      },
    );
    expect(stranger.error.code).toBe(-32004);
    const { result: done } = await rpc(
      "message/send",
      decision(task.id, { requestId: part.id, decision: "approve" }),
      headers,
    );
    expect(done.status.state).toBe("completed");
    const run = await getRun(task.id);
    expect(run.decisions).toHaveLength(1);
    expect(run.decisions[0]).toMatchObject({ channel: "a2a", decidedBy: "caller@example.com" });
    const again = await rpc(
      "message/send",
      decision(task.id, { requestId: part.id, decision: "approve" }),
      headers,
    );
    expect(again.error.code).toBe(-32004);
    expect((await getRun(task.id)).decisions).toHaveLength(1);
  });

  it("refuses the caller's own approval of a ruled request (-32004 naming the group), then the group decides", async () => {
    const headers = { "x-toolnexus-user": "ann@example.com" };
    const { result: task } = await rpc(
      "message/send",
      message("refund $2000 on order 42"),
      headers,
    );
    expect(task.status.state).toBe("input-required");
    const part = task.status.message.parts.find((p: { kind: string }) => p.kind === "data").data;
    expect(part.decidedBy).toMatchObject({ caller: false, group: "finance", quorum: 2 });
    // The version of the arguments up for decision, as GET /v1/runs/:id has it.
    expect(part.argsHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(part.argsHash).toBe((await getRun(task.id)).pending?.argsHash);
    const refused = await rpc(
      "message/send",
      decision(task.id, { requestId: part.id, decision: "approve" }),
      headers,
    );
    expect(refused.error.code).toBe(-32004);
    expect(refused.error.message).toContain('"finance"');
    const anonymous = await rpc(
      "message/send",
      decision(task.id, { requestId: part.id, decision: "approve" }),
    );
    expect(anonymous.error.code).toBe(-32004);
    const before = await getRun(task.id);
    expect(before.decisions).toHaveLength(0);
    expect(before.requests[0]?.refused ?? []).toHaveLength(0);
    for (const member of ["bob@example.com", "carol@example.com"]) {
      const vote = await signedDecision({
        runId: task.id,
        requestId: part.id,
        decision: "approve",
        decidedBy: member,
        argsHash: part.argsHash,
      });
      expect([200, 202]).toContain(vote.status);
    }
    await waitForStatus(task.id, ["done"]);
    const { result } = await rpc("GetTask", { id: task.id });
    expect(result.status.state).toBe("completed");
  });

  it("cancels a waiting task, and a finished one is not cancelable", async () => {
    const { result: task } = await rpc("message/send", message("refund $80 on order 42"));
    const canceled = await rpc("tasks/cancel", { id: task.id });
    expect(canceled.result.status.state).toBe("canceled");
    const again = await rpc("CancelTask", { id: task.id });
    expect(again.error.code).toBe(-32002);
  });

  it("streams a task: the task, then its final status", async () => {
    const response = await SELF.fetch(`${BASE}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}` },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "s1",
        method: "message/stream",
        params: message("refund $80 on order 42"),
      }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = (await response.text())
      .split("\n\n")
      .filter((chunk) => chunk.startsWith("data: "))
      .map((chunk) => JSON.parse(chunk.slice(6)));
    expect(events[0].id).toBe("s1");
    expect(events[0].result.kind).toBe("task");
    const last = events.at(-1).result;
    expect(last).toMatchObject({
      kind: "status-update",
      final: true,
      status: { state: "input-required" },
    });
  });
});
