// Our /mcp server under MCP 2026-07-28 (src/edge/protocols/mcp-server/modern): `initialize`
// negotiates either revision; a caller's input comes back as `input_required` with a signed
// `requestState` (a tampered one is refused, nothing written) and the retry with
// `inputResponses` finishes the same run; a run that waits for approvers becomes a task of the
// tasks extension that completes once POST /v1/decisions approves. The host is the official v2
// client (@modelcontextprotocol/client) where it can be, raw JSON-RPC where it cannot (it does
// not consume task results), its fetch routed into the worker.
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { API_TOKEN, BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";

const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";

const selfFetch: typeof fetch = (input, init) =>
  SELF.fetch(new Request(input as RequestInfo, init));

/** One JSON-RPC request under 2026-07-28 (no session), as a host sends it. */
async function rpc(
  method: string,
  params: Record<string, unknown>,
  options: { user?: string; capabilities?: Record<string, unknown> } = {},
): Promise<{ result?: any; error?: { code: number; message: string } }> {
  const response = await SELF.fetch(`${BASE}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${API_TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(options.user ? { "x-toolnexus-user": options.user } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": options.capabilities ?? {},
        },
      },
    }),
  });
  expect(response.status).toBe(200);
  return response.json();
}

async function initialize(protocolVersion: string) {
  const response = await SELF.fetch(`${BASE}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${API_TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion,
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: "raw-host", version: "1.0.0" },
      },
    }),
  });
  const text = await response.text();
  const data = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text);
  return { sessionId: response.headers.get("mcp-session-id"), result: data.result };
}

const textOf = (result: any): string =>
  result.content.map((c: { text: string }) => c.text).join("\n");

describe("MCP server, protocol 2026-07-28", () => {
  it("initialize answers the revision asked for: 2026-07-28 and 2025-11-25", async () => {
    const modern = await initialize(MODERN);
    expect(modern.result.protocolVersion).toBe(MODERN);
    expect(modern.result.capabilities.extensions).toEqual({ [TASKS]: {} });
    const legacy = await initialize("2025-11-25");
    expect(legacy.result.protocolVersion).toBe("2025-11-25");
    expect(legacy.result.capabilities.tasks).toBeDefined();
  });

  it("the v2 client negotiates 2026-07-28 and finishes a run that asks the caller", async () => {
    const client = new Client(
      { name: "v2-host", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
    );
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", (request: any) => {
      asked.push(request.params.message);
      return { action: "accept", content: { answer: "1 Main St" } };
    });
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      fetch: selfFetch,
      requestInit: {
        headers: { authorization: `Bearer ${API_TOKEN}`, "x-toolnexus-user": "host@example.com" },
      },
    });
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe("modern");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("support");
    const result = await client.callTool({
      name: "support",
      arguments: { prompt: "update my address" },
    });
    expect(asked).toEqual(["What is your new shipping address?"]);
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain("1 Main St");
    await client.close();
  });

  it("a run that waits for approvers is a task, completed once POST /v1/decisions approves", async () => {
    const user = "ann@example.com";
    const capabilities = { extensions: { [TASKS]: {} } };
    const call = await rpc(
      "tools/call",
      { name: "support", arguments: { prompt: "refund $120 on order 42" } },
      { user, capabilities },
    );
    expect(call.result.resultType).toBe("task");
    expect(call.result).not.toHaveProperty("result");
    const taskId = call.result.taskId as string;
    const waiting = await rpc("tasks/get", { taskId }, { user, capabilities });
    expect(waiting.result).toMatchObject({ resultType: "complete", taskId, status: "working" });
    expect(waiting.result.statusMessage).toContain("Refund $120 on order 42?");
    // Another caller does not see the task; a host without the extension may not ask.
    const stranger = await rpc("tasks/get", { taskId }, { user: "eve@example.com", capabilities });
    expect(stranger.error?.code).toBe(-32602);
    const undeclared = await rpc("tasks/get", { taskId }, { user });
    expect(undeclared.error?.code).toBe(-32021);
    const run = await getRun(taskId);
    expect(run.pending?.kind).toBe("approval");
    const decided = await signedDecision({
      runId: taskId,
      requestId: run.pending!.id,
      decision: "approve",
      decidedBy: "lead@example.com",
    });
    expect(decided.status).toBe(202);
    await waitForStatus(taskId, ["done"]);
    const done = await rpc("tasks/get", { taskId }, { user, capabilities });
    expect(done.result.status).toBe("completed");
    expect(textOf(done.result.result)).toContain("Refunded $120");
  });

  it("a task lives as long as its request (ttlMs) and tasks/cancel cancels the run", async () => {
    const user = "ann@example.com";
    const capabilities = { extensions: { [TASKS]: {} } };
    const call = await rpc(
      "tools/call",
      { name: "support", arguments: { prompt: "please delete my account" } },
      { user, capabilities },
    );
    expect(call.result.resultType).toBe("task");
    const taskId = call.result.taskId as string;
    const run = await getRun(taskId);
    expect(run.expiresAt).not.toBeNull();
    expect(call.result.ttlMs).toBe(Date.parse(run.expiresAt!) - Date.parse(run.createdAt));
    const cancelled = await rpc("tasks/cancel", { taskId }, { user, capabilities });
    expect(cancelled.result).toMatchObject({ resultType: "complete" });
    await waitForStatus(taskId, ["cancelled"]);
    const after = await rpc("tasks/get", { taskId }, { user, capabilities });
    expect(after.result.status).toBe("cancelled");
  });

  it("without the tasks extension, a wait is input_required with only a requestState", async () => {
    const user = "ann@example.com";
    const call = await rpc(
      "tools/call",
      { name: "support", arguments: { prompt: "refund $120 on order 42" } },
      { user },
    );
    expect(call.result.resultType).toBe("input_required");
    expect(call.result.inputRequests).toBeUndefined();
    expect(typeof call.result.requestState).toBe("string");
    // Calling again with the state follows the same run: still waiting, no second run.
    const again = await rpc(
      "tools/call",
      {
        name: "support",
        arguments: { prompt: "refund $120 on order 42" },
        requestState: call.result.requestState,
      },
      { user },
    );
    expect(again.result.resultType).toBe("input_required");
  });

  it("a caller's input is input_required; a tampered requestState is refused and nothing is written", async () => {
    const user = "host@example.com";
    const capabilities = { elicitation: { form: {} } };
    const args = { name: "support", arguments: { prompt: "update my address" } };
    const first = await rpc("tools/call", args, { user, capabilities });
    expect(first.result.resultType).toBe("input_required");
    const entries = Object.entries(first.result.inputRequests) as [string, any][];
    expect(entries).toHaveLength(1);
    const [requestId, input] = entries[0]!;
    expect(input).toMatchObject({
      method: "elicitation/create",
      params: { mode: "form", message: "What is your new shipping address?" },
    });
    const state = first.result.requestState as string;
    const flipped = `${state.slice(0, -2)}${state.endsWith("A") ? "B" : "A"}${state.slice(-1)}`;
    const inputResponses = { [requestId]: { action: "accept", content: { answer: "9 Elm St" } } };
    const tampered = await rpc(
      "tools/call",
      { ...args, requestState: flipped, inputResponses },
      { user, capabilities },
    );
    expect(tampered.error?.code).toBe(-32602);
    // Someone else holding the state may not use it either.
    const stranger = await rpc(
      "tools/call",
      { ...args, requestState: state, inputResponses },
      { user: "eve@example.com", capabilities },
    );
    expect(stranger.error?.code).toBe(-32602);
    const runs = await listThreadRuns(state);
    expect(runs.status).toBe("pending");
    expect(runs.decisions).toEqual([]);
    const done = await rpc(
      "tools/call",
      { ...args, requestState: state, inputResponses },
      { user, capabilities },
    );
    expect(done.result.resultType).toBe("complete");
    expect(textOf(done.result)).toContain("9 Elm St");
  });

  it("a host that initialized at 2026-07-28 gets input_required on its session too", async () => {
    const { sessionId } = await initialize(MODERN);
    const response = await SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${API_TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId!,
        "mcp-protocol-version": MODERN,
        "x-toolnexus-user": "host@example.com",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "support", arguments: { prompt: "update my address" } },
      }),
    });
    const body = (await response.json()) as any;
    expect(body.result.resultType).toBe("input_required");
    expect(Object.values(body.result.inputRequests)).toHaveLength(1);
  });
});

/** The run a requestState names (read through the API: the state's claims are base64url JSON). */
async function listThreadRuns(state: string) {
  const payload = state.slice(2).split(".")[0]!;
  const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
  return getRun((JSON.parse(json) as { runId: string }).runId);
}
