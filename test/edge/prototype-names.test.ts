// Issue 37: every name a request supplies (a JSON-RPC method, a tool, skill, agent or group
// name, a message part's type, an object's keys) is looked up as an own entry, never as
// Object's members. Each protocol route gets every prototype name and must answer with a
// clean refusal (4xx in the §4 shape, or a JSON-RPC error), and no body may carry a secret.
// (Slack interactions: test/slack/prototype-names.test.ts.)
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { API_TOKEN, BASE, api } from "../helpers/edge";
import { runAgentInput, userMessage } from "../helpers/chat";
import { leakedSecrets, PROTOTYPE_NAMES, prototypeKeysObject } from "../helpers/prototype-names";

const NAMES = [...PROTOTYPE_NAMES];

/** A §4 refusal: 4xx, `{ error: { code, message } }`, nothing secret in it. */
async function expectCleanRefusal(response: Response, what: string) {
  const text = await response.text();
  expect(leakedSecrets(text), `${what}: ${text}`).toEqual([]);
  expect(response.status, `${what}: ${text}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${what}: ${text}`).toBeLessThan(500);
  const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
  expect(typeof body.error?.code, `${what}: ${text}`).toBe("string");
  expect(typeof body.error?.message, `${what}: ${text}`).toBe("string");
}

/** A JSON-RPC error (HTTP 200 or 4xx) with nothing secret in it, and no result. */
function expectRpcError(text: string, what: string) {
  expect(leakedSecrets(text), `${what}: ${text}`).toEqual([]);
  const data = text.startsWith("{")
    ? text
    : text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("");
  const body = JSON.parse(data) as { error?: { code?: unknown }; result?: unknown };
  expect(body.result, `${what}: ${text}`).toBeUndefined();
  expect(typeof body.error?.code, `${what}: ${text}`).toBe("number");
  return body.error?.code as number;
}

const a2a = (body: string) =>
  SELF.fetch(`${BASE}/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    body,
  });

describe("prototype names on every protocol route", () => {
  it("A2A: a prototype name as method, skill, task id or params key is a JSON-RPC error", async () => {
    for (const name of NAMES) {
      const method = await a2a(JSON.stringify({ jsonrpc: "2.0", id: 1, method: name }));
      expect(method.status).toBe(200);
      expect(expectRpcError(await method.text(), `method ${name}`)).toBe(-32601);

      const skill = await a2a(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "message/send",
          params: {
            message: {
              kind: "message",
              role: "user",
              messageId: "m1",
              parts: [{ kind: "text", text: "hi" }],
              metadata: { skill: name },
            },
          },
        }),
      );
      expect(expectRpcError(await skill.text(), `skill ${name}`)).toBe(-32602);

      const task = await a2a(
        JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { id: name } }),
      );
      expect(expectRpcError(await task.text(), `task ${name}`)).toBe(-32001);
    }
    for (const method of [
      "message/send",
      "tasks/get",
      "tasks/cancel",
      "tasks/pushNotificationConfig/get",
    ]) {
      const keys = await a2a(
        `{"jsonrpc":"2.0","id":4,"method":${JSON.stringify(method)},"params":${prototypeKeysObject('"x"')}}`,
      );
      expectRpcError(await keys.text(), `${method} with prototype keys`);
    }
  });

  it("MCP: a prototype name as method or tool name is a JSON-RPC error", async () => {
    const headers = {
      authorization: `Bearer ${API_TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const init = await SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "probe", version: "1" },
        },
      }),
    });
    expect(init.status).toBe(200);
    await init.text();
    const session = { ...headers, "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
    const post = async (body: string) => {
      const response = await SELF.fetch(`${BASE}/mcp`, { method: "POST", headers: session, body });
      return response.text();
    };
    await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    let id = 1;
    for (const name of NAMES) {
      expect(
        expectRpcError(
          await post(JSON.stringify({ jsonrpc: "2.0", id: id++, method: name, params: {} })),
          `method ${name}`,
        ),
      ).toBe(-32601);
      expectRpcError(
        await post(
          JSON.stringify({
            jsonrpc: "2.0",
            id: id++,
            method: "tools/call",
            params: { name, arguments: { prompt: "hi" } },
          }),
        ),
        `tool ${name}`,
      );
      expectRpcError(
        await post(
          JSON.stringify({
            jsonrpc: "2.0",
            id: id++,
            method: "tasks/cancel",
            params: { taskId: name },
          }),
        ),
        `tasks/cancel ${name}`,
      );
    }
  });

  it("AG-UI: a prototype name as agent, role or interrupt id is a clean 4xx", async () => {
    for (const name of NAMES) {
      const agent = await api(`/v1/ag-ui/${encodeURIComponent(name)}`, {
        method: "POST",
        body: JSON.stringify(
          runAgentInput(`t-${name}`, { messages: [{ id: "m", role: "user", content: "hi" }] }),
        ),
      });
      await expectCleanRefusal(agent, `agent ${name}`);
      const role = await api("/v1/ag-ui/support", {
        method: "POST",
        body: JSON.stringify(
          runAgentInput(`t-${name}`, { messages: [{ id: "m", role: name, content: "hi" }] }),
        ),
      });
      await expectCleanRefusal(role, `role ${name}`);
      const resume = await api("/v1/ag-ui/support", {
        method: "POST",
        body: JSON.stringify(
          runAgentInput(`t-${name}`, {
            resume: [{ interruptId: name, status: "resolved", payload: { approved: true } }],
          }),
        ),
      });
      await expectCleanRefusal(resume, `interrupt ${name}`);
    }
  });

  it("chat: a prototype name as agent, part type or approval id is a clean 4xx", async () => {
    for (const name of NAMES) {
      const agent = await api(`/v1/chat/${encodeURIComponent(name)}`, {
        method: "POST",
        body: JSON.stringify({ id: `c-${name}`, messages: [userMessage("hi")] }),
      });
      await expectCleanRefusal(agent, `agent ${name}`);
      const part = await api("/v1/chat/support", {
        method: "POST",
        body: JSON.stringify({
          id: `c-${name}`,
          messages: [
            {
              id: "a",
              role: "assistant",
              parts: [
                { type: name },
                {
                  type: `tool-${name}`,
                  toolCallId: name,
                  state: "approval-responded",
                  approval: { id: name, approved: true },
                },
              ],
            },
          ],
        }),
      });
      await expectCleanRefusal(part, `part ${name}`);
    }
  });

  it("runs, agents and groups: a prototype name as agent or group is a clean 4xx", async () => {
    for (const name of NAMES) {
      await expectCleanRefusal(
        await api("/v1/runs", {
          method: "POST",
          body: JSON.stringify({ agent: name, input: "hi" }),
        }),
        `run agent ${name}`,
      );
      await expectCleanRefusal(
        await api(`/v1/approvals?group=${encodeURIComponent(name)}`),
        `group ${name}`,
      );
      await expectCleanRefusal(await api(`/v1/runs/${encodeURIComponent(name)}`), `run ${name}`);
    }
    const keys = await api("/v1/runs", {
      method: "POST",
      body: prototypeKeysObject('"x"'),
    });
    await expectCleanRefusal(keys, "run body with prototype keys");
  });
});
