/**
 * A2A inbound against the real worker under `wrangler dev`, driven by `@a2a-js/sdk`'s own
 * client (code nobody here wrote): the default 1.3 client (it picks the card's A2A 1.0
 * interface) and one restricted to the card's 0.3 interface (v0.3 method names). Send,
 * stream, a task that waits on the finance group, the caller's own approval refused with
 * -32004 naming the group, the group deciding through the signed webhook, the task
 * completed; and a push config whose signed notification reaches a receiver on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Role, TaskState } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { createClient, isFinished } from "../../scripts/lib/api.mjs";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { startReceiver } from "../../scripts/lib/receiver.mjs";

const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`a2a-sdk.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

let server;
let api;
let receiver;

before(
  async () => {
    server = await startDevServer({ timeoutMs: 90_000 });
    api = createClient({
      baseUrl: server.url,
      apiToken: server.apiToken,
      webhookSecret: server.webhookSecrets[0],
    });
    receiver = await startReceiver({ secrets: server.notifySecrets });
  },
  { timeout: 100_000 },
);

after(async () => {
  await receiver?.close();
  await server?.stop();
});

/** Every JSON-RPC method the SDK sent, in order (to see which spelling it speaks). */
const sent = [];

/** The SDK's fetch with our Bearer token and, optionally, the person the caller acts for. */
function authFetch(user) {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${server.apiToken}`);
    if (user) {
      headers.set("x-toolnexus-user", user);
    }
    if (typeof init.body === "string") {
      sent.push(JSON.parse(init.body).method);
    }
    return fetch(input, { ...init, headers });
  };
}

/** The SDK client as a 1.3 user builds it: card from /.well-known, JSON-RPC transport. */
async function sdkClient({ user, legacy = false } = {}) {
  const transport = new JsonRpcTransportFactory({
    fetchImpl: authFetch(user),
    ...(legacy ? { legacyCompat: { enabled: true } } : {}),
  });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [transport] }),
  );
  if (!legacy) {
    return factory.createFromUrl(server.url);
  }
  // Only the card's 0.3 interface: the SDK's v0.3 transport (message/send, tasks/get, …).
  const card = await new DefaultAgentCardResolver().resolve(server.url);
  return factory.createFromAgentCard({
    ...card,
    supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion.startsWith("0.")),
  });
}

const textMessage = (text, extra = {}) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text } }],
    ...extra,
  },
});

const decisionMessage = (taskId, contextId, data) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    taskId,
    contextId,
    parts: [{ content: { $case: "data", value: data } }],
  },
});

const artifactText = (task) =>
  task.artifacts
    .flatMap((a) => a.parts)
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .join("");

const requestOf = (task) =>
  task.status.message.parts.find((p) => p.content?.$case === "data")?.content.value;

/** Runs `fn`; on failure, adds wrangler's last lines to the error. */
async function withServerLog(fn) {
  try {
    return await fn();
  } catch (error) {
    error.message += `\n--- wrangler dev output (last lines) ---\n${server?.tail() ?? "(not started)"}`;
    throw error;
  }
}

for (const legacy of [false, true]) {
  const spelling = legacy ? "0.3 interface: message/send …" : "1.0 interface: SendMessage …";
  describe(`@a2a-js/sdk client (${spelling})`, () => {
    test("sends a message and gets the completed task with its answer", { timeout: 30_000 }, () =>
      withServerLog(async () => {
        const client = await sdkClient({ legacy });
        sent.length = 0;
        const task = await client.sendMessage(textMessage("where is order 42"));
        assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
        assert.match(artifactText(task), /Order 42 is shipped/);
        const again = await client.getTask({ id: task.id });
        assert.equal(again.status.state, TaskState.TASK_STATE_COMPLETED);
        assert.deepEqual(sent, legacy ? ["message/send", "tasks/get"] : ["SendMessage", "GetTask"]);
      }),
    );

    test("streams a task: the task first, then input-required", { timeout: 30_000 }, () =>
      withServerLog(async () => {
        const client = await sdkClient({ legacy });
        sent.length = 0;
        const events = [];
        for await (const event of client.sendMessageStream(textMessage("refund $80 on order 42"))) {
          events.push(event.payload);
        }
        assert.equal(events[0].$case, "task");
        const last = events.at(-1);
        assert.equal(last.$case, "statusUpdate", JSON.stringify(events));
        assert.equal(last.value.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
        assert.deepEqual(sent, [legacy ? "message/stream" : "SendStreamingMessage"]);
      }),
    );

    test(
      "a refund the finance group decides: the caller's own approval is refused (-32004 naming the group), the group approves through the signed webhook, the task completes",
      { timeout: 60_000 },
      () =>
        withServerLog(async () => {
          const client = await sdkClient({ user: "requester@example.com", legacy });
          const waiting = await client.sendMessage(textMessage("refund $2000 on order 42"));
          assert.equal(waiting.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
          const request = requestOf(waiting);
          assert.equal(request.kind, "approval");
          assert.deepEqual(request.decidedBy, { caller: false, group: "finance", quorum: 2 });

          const selfApproval = decisionMessage(waiting.id, waiting.contextId, {
            requestId: request.id,
            decision: "approve",
          });
          await assert.rejects(client.sendMessage(selfApproval), (error) => {
            // The SDK maps JSON-RPC -32004 to its UnsupportedOperationError.
            assert.equal(error.name, "UnsupportedOperationError");
            assert.equal(error.envelopeCode, -32004);
            assert.match(String(error.message), /"finance"/);
            return true;
          });
          const untouched = await api.getRun(waiting.id);
          assert.equal(untouched.status, "pending");
          assert.deepEqual(untouched.decisions, []);

          // The group decides through the signed webhook: both finance members of TEST_VARS.
          for (const member of ["ann@example.com", "bob@example.com"]) {
            const vote = await api.decide({
              runId: waiting.id,
              requestId: request.id,
              decision: "approve",
              decidedBy: member,
              argsHash: request.argsHash,
            });
            assert.ok([200, 202].includes(vote.status), JSON.stringify(vote.body));
          }
          const done = await api.waitFor(waiting.id, isFinished);
          assert.equal(done.status, "done");
          const completed = await client.getTask({ id: waiting.id });
          assert.equal(completed.status.state, TaskState.TASK_STATE_COMPLETED);
          assert.match(artifactText(completed), /Refunded \$2000 on order 42/);
        }),
    );
  });
}

test(
  "a push config set through the SDK gets the signed notification when the task waits",
  {
    timeout: 60_000,
  },
  () =>
    withServerLog(async () => {
      const client = await sdkClient();
      const task = await client.sendMessage({
        ...textMessage("please delete my account"),
        configuration: { returnImmediately: true, acceptedOutputModes: [] },
      });
      const config = await client.createTaskPushNotificationConfig({
        taskId: task.id,
        id: "callback",
        url: receiver.url,
      });
      assert.equal(config.url, receiver.url);
      const listed = await client.listTaskPushNotificationConfig({ taskId: task.id });
      assert.deepEqual(
        listed.configs.map((c) => c.url),
        [receiver.url],
      );
      const notification = await receiver.next(30_000);
      assert.ok(notification.verified.ok, notification.verified.reason);
      assert.equal(notification.json.type, "run.pending");
      assert.equal(notification.json.runId, task.id);
      await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: "callback" });
      const after = await client.listTaskPushNotificationConfig({ taskId: task.id });
      assert.deepEqual(after.configs, []);
    }),
);
