// A2A at the edge, beyond the v0.3 basics of a2a.test.ts: the card's two interfaces, A2A 1.0's
// shapes for a caller that says it speaks 1.0, push-notification config in both spellings
// (over the run's callbackUrl, checked like one), and the error event of a failed stream.
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import type { ThreadRpc } from "../../src/edge/protocol";
import { taskStream } from "../../src/edge/protocols/a2a/stream";
import { API_TOKEN, BASE } from "../helpers/edge";

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

const V1 = { "a2a-version": "1.0" };
const v1Message = (text: string) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] },
});
const v03Message = (text: string) => ({
  message: {
    kind: "message",
    role: "user",
    messageId: crypto.randomUUID(),
    parts: [{ kind: "text", text }],
  },
});

describe("the agent card's interfaces", () => {
  it("lists the 1.0 JSON-RPC interface first and the 0.3 one, at /a2a, and push support", async () => {
    const card = await (await SELF.fetch(`${BASE}/.well-known/agent-card.json`)).json<any>();
    expect(card.supportedInterfaces).toEqual([
      { url: `${BASE}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${BASE}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "0.3.0" },
    ]);
    expect(card.capabilities.pushNotifications).toBe(true);
  });
});

describe("A2A 1.0 shapes", () => {
  it("answers SendMessage with A2A-Version 1.0 as { task } with TASK_STATE_* and untagged parts", async () => {
    const { result } = await rpc("SendMessage", v1Message("where is order 42"), V1);
    expect(Object.keys(result)).toEqual(["task"]);
    expect(result.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(result.task.artifacts[0].parts[0]).toEqual({ text: expect.stringContaining("42") });
    const got = await rpc("GetTask", { id: result.task.id }, V1);
    expect(got.result.id).toBe(result.task.id);
    expect(got.result.status.state).toBe("TASK_STATE_COMPLETED");
    // The same method without the header (the SPEC's literal spelling) keeps v0.3's shape.
    const plain = await rpc("GetTask", { id: result.task.id });
    expect(plain.result).toMatchObject({ kind: "task", status: { state: "completed" } });
  });

  it("a 1.0 message role alone selects 1.0 shapes; a waiting task's request is a data part", async () => {
    const { result } = await rpc("SendMessage", v1Message("refund $80 on order 42"));
    expect(result.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const message = result.task.status.message;
    expect(message.role).toBe("ROLE_AGENT");
    const data = message.parts.find((p: any) => p.data)?.data;
    expect(data).toMatchObject({ kind: "approval", tool: "refund_order" });
    expect(data.argsHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("streams 1.0 events: { task } first, then { statusUpdate }", async () => {
    const response = await SELF.fetch(`${BASE}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, ...V1 },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "v1s",
        method: "SendStreamingMessage",
        params: v1Message("refund $80 on order 42"),
      }),
    });
    const events = (await response.text())
      .split("\n\n")
      .filter((chunk) => chunk.startsWith("data: "))
      .map((chunk) => JSON.parse(chunk.slice(6)).result);
    expect(Object.keys(events[0])).toEqual(["task"]);
    expect(events.at(-1).statusUpdate.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
  });
});

describe("push notification config", () => {
  it("sets, gets, lists and deletes under v0.3's names", async () => {
    const headers = { "x-toolnexus-user": "pusher@example.com" };
    const { result: task } = await rpc(
      "message/send",
      v03Message("refund $80 on order 42"),
      headers,
    );
    expect((await rpc("tasks/pushNotificationConfig/list", { id: task.id })).result).toEqual([]);
    const url = "http://127.0.0.1:9/a2a-push";
    const set = await rpc(
      "tasks/pushNotificationConfig/set",
      { taskId: task.id, pushNotificationConfig: { url } },
      headers,
    );
    expect(set.result).toEqual({
      taskId: task.id,
      pushNotificationConfig: { id: "callback", url },
    });
    expect((await rpc("tasks/pushNotificationConfig/get", { id: task.id })).result).toEqual(
      set.result,
    );
    expect((await rpc("tasks/pushNotificationConfig/list", { id: task.id })).result).toEqual([
      set.result,
    ]);
    // Another identity may not change it.
    const stranger = await rpc(
      "tasks/pushNotificationConfig/delete",
      { id: task.id, pushNotificationConfigId: "callback" },
      { "x-toolnexus-user": "someone@example.com" },
    );
    expect(stranger.error.code).toBe(-32004);
    const deleted = await rpc(
      "tasks/pushNotificationConfig/delete",
      { id: task.id, pushNotificationConfigId: "callback" },
      headers,
    );
    expect(deleted.result).toBeNull();
    expect((await rpc("tasks/pushNotificationConfig/get", { id: task.id })).error.code).toBe(
      -32602,
    );
  });

  it("sets, gets, lists and deletes under 1.0's names with flat configs", async () => {
    const { result } = await rpc("SendMessage", v1Message("refund $80 on order 42"), V1);
    const taskId = result.task.id;
    const url = "http://127.0.0.1:9/a2a-push-v1";
    const created = await rpc("CreateTaskPushNotificationConfig", { taskId, url }, V1);
    expect(created.result).toEqual({ id: "callback", taskId, url });
    expect(
      (await rpc("GetTaskPushNotificationConfig", { taskId, id: "callback" }, V1)).result,
    ).toEqual(created.result);
    expect((await rpc("ListTaskPushNotificationConfigs", { taskId }, V1)).result).toEqual({
      configs: [created.result],
      nextPageToken: "",
    });
    expect(
      (await rpc("DeleteTaskPushNotificationConfig", { taskId, id: "callback" }, V1)).result,
    ).toEqual({});
    expect((await rpc("ListTaskPushNotificationConfigs", { taskId }, V1)).result.configs).toEqual(
      [],
    );
  });

  it("refuses a URL a callbackUrl could not be, another config id, and an unknown task", async () => {
    const { result: task } = await rpc("message/send", v03Message("refund $80 on order 42"));
    const bad = await rpc("tasks/pushNotificationConfig/set", {
      taskId: task.id,
      pushNotificationConfig: { url: "http://10.0.0.1/hook" },
    });
    expect(bad.error.code).toBe(-32602);
    expect(bad.error.message).toMatch(/push notification url/);
    const otherId = await rpc("CreateTaskPushNotificationConfig", {
      taskId: task.id,
      id: "mine",
      url: "http://127.0.0.1:9/x",
    });
    expect(otherId.error.code).toBe(-32602);
    expect((await rpc("tasks/pushNotificationConfig/list", { id: task.id })).result).toEqual([]);
    const unknown = await rpc("tasks/pushNotificationConfig/get", {
      id: "th_x.run_00000000000000000000",
    });
    expect(unknown.error.code).toBe(-32001);
  });

  it("takes the push URL with the first message, checked the same way", async () => {
    const url = "http://127.0.0.1:9/first";
    const { result: task } = await rpc("message/send", {
      ...v03Message("refund $80 on order 42"),
      configuration: { blocking: false, pushNotificationConfig: { url } },
    });
    expect((await rpc("tasks/pushNotificationConfig/get", { id: task.id })).result).toEqual({
      taskId: task.id,
      pushNotificationConfig: { id: "callback", url },
    });
    const refused = await rpc("message/send", {
      ...v03Message("hello"),
      configuration: { pushNotificationConfig: { url: "ftp://x/y" } },
    });
    expect(refused.error.code).toBe(-32602);
    expect(refused.error.message).toMatch(/^pushNotificationConfig.url /);
  });
});

describe("a stream that fails once started", () => {
  it("ends with a JSON-RPC error event naming the failure", async () => {
    const failing = {
      getRun: async () => {
        throw new Error("storage went away");
      },
    } as unknown as ThreadRpc;
    const response = taskStream(
      { stub: failing, runId: "th_x.run_1" },
      { id: 7, signal: new AbortController().signal },
    );
    const events = (await response.text())
      .split("\n\n")
      .filter((chunk) => chunk.startsWith("data: "))
      .map((chunk) => JSON.parse(chunk.slice(6)));
    expect(events).toEqual([
      {
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32603, message: expect.stringContaining("storage went away") },
      },
    ]);
  });
});
