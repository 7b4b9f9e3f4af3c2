/**
 * The published clients against the real worker under `wrangler dev` (workerd): the AI SDK's
 * `DefaultChatTransport` + `readUIMessageStream`, and `@ag-ui/client`'s `HttpAgent`, each
 * through a refund that waits for approval; then one run seen three ways — our /events, the
 * UI message stream and AG-UI — reports the same tool calls, results and decisions.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { HttpAgent } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";
import { EventEncoder } from "@ag-ui/encoder";
import { DefaultChatTransport, readUIMessageStream } from "ai";
import { RUNTIME_ERROR, startDevServer } from "../../scripts/lib/dev-server.mjs";

const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`chat-clients.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

let server;
let auth;

before(
  async () => {
    server = await startDevServer({ timeoutMs: 60_000 });
    auth = { authorization: `Bearer ${server.apiToken}` };
  },
  { timeout: 75_000 },
);

after(async () => {
  await server?.stop();
});

const transport = (user) =>
  new DefaultChatTransport({
    api: `${server.url}/v1/chat/support`,
    headers: { ...auth, ...(user ? { "x-toolnexus-user": user } : {}) },
  });

/** Sends, and folds the response into the assistant message, as useChat does. */
async function send(chat, chatId, messages, message) {
  const stream = await chat.sendMessages({
    chatId,
    messages,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  let last;
  for await (const snapshot of readUIMessageStream({ stream, ...(message ? { message } : {}) })) {
    last = snapshot;
  }
  return last;
}

/** What `addToolApprovalResponse` does to the message. */
function respond(message, approvalId, approved) {
  return {
    ...message,
    parts: message.parts.map((p) =>
      p.state === "approval-requested" && p.approval?.id === approvalId
        ? { ...p, state: "approval-responded", approval: { ...p.approval, approved } }
        : p,
    ),
  };
}

const userMessage = (text) => ({
  id: `m_${crypto.randomUUID()}`,
  role: "user",
  parts: [{ type: "text", text }],
});

test("ai's DefaultChatTransport: the approval card, the approved refund, the answer; resume says 204", async () => {
  const chat = transport("carol@example.com");
  const chatId = `c_${crypto.randomUUID()}`;
  const user = userMessage("refund $120 on order 42");
  const asked = await send(chat, chatId, [user]);
  const tool = asked.parts.find((p) => p.type === "tool-refund_order");
  assert.equal(tool.state, "approval-requested");
  assert.deepEqual(tool.input, { orderId: "42", amount: 120 });

  const answered = respond(asked, tool.approval.id, true);
  const done = await send(chat, chatId, [user, answered], answered);
  const settled = done.parts.find((p) => p.type === "tool-refund_order");
  assert.equal(settled.state, "output-available");
  assert.equal(settled.output, "Refunded $120 on order 42");
  const text = done.parts
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
  assert.match(text, /refund/i);
  assert.equal(await chat.reconnectToStream({ chatId }), null); // 204: nothing active

  const run = await (
    await fetch(`${server.url}/v1/runs/${done.id.slice(2)}`, { headers: auth })
  ).json();
  assert.equal(run.decisions[0].channel, "chat");
  assert.equal(run.decisions[0].decidedBy, "carol@example.com");
  assert.equal(run.requestedBy, "carol@example.com");
});

test("ai's transport: approve, then type a new message before sending: one request, no 409, the new message answered", async () => {
  const chat = transport("dave@example.com");
  const chatId = `c_${crypto.randomUUID()}`;
  const user = userMessage("refund $120 on order 42");
  const asked = await send(chat, chatId, [user]);
  const tool = asked.parts.find((p) => p.type === "tool-refund_order");
  // ai keeps the stream's approvalDescriptor (the argsHash shown) on the part it answers.
  assert.match(tool.approval.descriptor.argsHash, /^[A-Za-z0-9_-]{43}$/);
  const answered = respond(asked, tool.approval.id, true);

  // Edits travel in the request body (addToolApprovalResponse's options.body): this
  // request has no approver rules, so they are refused before anything is written.
  const edited = chat.sendMessages({
    chatId,
    messages: [user, answered],
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
    body: { edits: { [tool.approval.id]: { orderId: "42", amount: 60 } } },
  });
  await assert.rejects(edited, /not_editable/);

  const next = userMessage("what is the status of order 7?");
  const reply = await send(chat, chatId, [user, answered, next]);
  assert.notEqual(reply.id, asked.id);
  const text = reply.parts
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
  assert.ok(text.length > 0);
  const first = await (
    await fetch(`${server.url}/v1/runs/${asked.id.slice(2)}`, { headers: auth })
  ).json();
  assert.equal(first.status, "done");
  assert.equal(first.decisions[0].decidedBy, "dave@example.com");
  const second = await (
    await fetch(`${server.url}/v1/runs/${reply.id.slice(2)}`, { headers: auth })
  ).json();
  assert.equal(second.input, "what is the status of order 7?");
});

test("@ag-ui/client's HttpAgent: an interrupt outcome, then resume approves it", async () => {
  const agent = new HttpAgent({
    url: `${server.url}/v1/ag-ui/support`,
    headers: auth,
    threadId: `a_${crypto.randomUUID()}`,
  });
  agent.addMessage({
    id: `m_${crypto.randomUUID()}`,
    role: "user",
    content: "refund $120 on order 42",
  });
  const finished = [];
  await agent.runAgent({}, { onRunFinishedEvent: (params) => finished.push(params) });
  assert.equal(agent.pendingInterrupts.length, 1);
  const [interrupt] = agent.pendingInterrupts;
  assert.equal(interrupt.reason, "tool_approval");
  assert.equal(interrupt.message, "Refund $120 on order 42?");
  // The tool call came as one TOOL_CALL_CHUNK: the client expanded it into its call.
  const caller = agent.messages.find((m) => m.role === "assistant" && m.toolCalls?.length);
  assert.equal(caller.toolCalls[0].id, interrupt.toolCallId);
  assert.equal(caller.toolCalls[0].function.name, "refund_order");
  assert.deepEqual(JSON.parse(caller.toolCalls[0].function.arguments), {
    orderId: "42",
    amount: 120,
  });

  const events = [];
  await agent.runAgent(
    { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] },
    { onEvent: ({ event }) => events.push(event) },
  );
  assert.equal(agent.pendingInterrupts.length, 0);
  const result = events.find((e) => e.type === "TOOL_CALL_RESULT");
  assert.equal(result.content, "Refunded $120 on order 42");
  assert.equal(events.at(-1).type, "RUN_FINISHED");
  const tool = agent.messages.find((m) => m.role === "tool");
  assert.equal(tool.content, "Refunded $120 on order 42");
  // TEXT_MESSAGE_CHUNKs expanded: START, CONTENT, and the END the client synthesizes.
  const types = events.map((e) => e.type);
  assert.ok(types.includes("TEXT_MESSAGE_START") && types.includes("TEXT_MESSAGE_END"));
  const answer = agent.messages.findLast((m) => m.role === "assistant");
  assert.match(answer.content, /refund/i);
  assert.doesNotMatch(server.output(), RUNTIME_ERROR);
});

/** SSE `data:` frames of a response, parsed. */
async function frames(response) {
  const text = await response.text();
  return text
    .split("\n\n")
    .flatMap((block) => block.split("\n").filter((l) => l.startsWith("data: ")))
    .map((l) => l.slice(6))
    .filter((d) => d && d !== "[DONE]")
    .map((d) => JSON.parse(d));
}

test("one run through /events, the UI message stream and AG-UI: the same calls, results and decisions", async () => {
  const chat = transport();
  const chatId = `d_${crypto.randomUUID()}`;
  const user = userMessage("refund $120 on order 42");
  const asked = await send(chat, chatId, [user]);
  const tool = asked.parts.find((p) => p.type === "tool-refund_order");
  const answered = respond(asked, tool.approval.id, true);
  await send(chat, chatId, [user, answered], answered);
  const runId = asked.id.slice(2);

  // 1. our own log
  const raw = await (
    await fetch(`${server.url}/v1/runs/${runId}/events`, { headers: auth })
  ).text();
  const ours = raw
    .split("\n\n")
    .filter((b) => b.includes("event: "))
    .map((b) => ({
      event: /event: (.*)/.exec(b)[1],
      data: JSON.parse(/data: (.*)/.exec(b)[1]),
    }));
  const fromEvents = {
    calls: ours
      .filter((e) => e.event === "tool_call")
      .map((e) => [e.data.id, e.data.name, e.data.args]),
    results: ours.filter((e) => e.event === "tool_result").map((e) => [e.data.id, e.data.output]),
    decisions: ours
      .filter((e) => e.event === "resumed" && e.data.requestId)
      .map((e) => [e.data.requestId, e.data.decision, e.data.channel]),
  };

  // 2. the UI message stream (the same message again replays its run)
  const chunks = [];
  const replay = await chat.sendMessages({
    chatId,
    messages: [user],
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  for await (const chunk of replay) {
    chunks.push(chunk);
  }
  const fromChat = {
    calls: chunks
      .filter((c) => c.type === "tool-input-available")
      .map((c) => [c.toolCallId, c.toolName, c.input]),
    results: chunks
      .filter((c) => c.type === "tool-output-available")
      .map((c) => [c.toolCallId, c.output]),
    decisions: chunks
      .filter((c) => c.type === "data-toolnexus-decision")
      .map((c) => [c.id, c.data.decision, c.data.channel]),
  };

  // 3. AG-UI, same conversation id, same user message: the run replayed as AG-UI events
  const agent = new HttpAgent({
    url: `${server.url}/v1/ag-ui/support`,
    headers: auth,
    threadId: chatId,
  });
  agent.addMessage({ id: user.id, role: "user", content: "refund $120 on order 42" });
  const events = [];
  await agent.runAgent({}, { onEvent: ({ event }) => events.push(event) });
  const args = new Map(
    events
      .filter((e) => e.type === "TOOL_CALL_ARGS")
      .map((e) => [e.toolCallId, JSON.parse(e.delta)]),
  );
  const fromAgUi = {
    calls: events
      .filter((e) => e.type === "TOOL_CALL_START")
      .map((e) => [e.toolCallId, e.toolCallName, args.get(e.toolCallId)]),
    results: events
      .filter((e) => e.type === "TOOL_CALL_RESULT")
      .map((e) => [e.toolCallId, e.content]),
    decisions: events
      .filter((e) => e.type === "CUSTOM" && e.name === "toolnexus.decision")
      .map((e) => [e.value.requestId, e.value.decision, e.value.channel]),
  };

  assert.equal(fromEvents.calls.length, 1);
  assert.equal(fromEvents.decisions.length, 1);
  assert.deepEqual(fromChat, fromEvents);
  assert.deepEqual(fromAgUi, fromEvents);

  // Our AG-UI frames are exactly what the published encoder writes for the same events.
  const wire = await frames(
    await fetch(`${server.url}/v1/ag-ui/support`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        threadId: chatId,
        runId: "r_wire",
        messages: [{ id: user.id, role: "user", content: "refund $120 on order 42" }],
      }),
    }),
  );
  const encoder = new EventEncoder();
  for (const event of wire) {
    assert.equal(encoder.encodeSSE(event), `data: ${JSON.stringify(event)}\n\n`);
    EventSchemas.parse(event); // each frame is a valid AG-UI 1.0 event as sent
  }
  // Text and tool calls in the chunked form, which every AG-UI consumer expands.
  const kinds = new Set(wire.map((e) => e.type));
  assert.ok(kinds.has("TOOL_CALL_CHUNK") && kinds.has("TEXT_MESSAGE_CHUNK"));
  assert.ok(!kinds.has("TOOL_CALL_START") && !kinds.has("TEXT_MESSAGE_START"));
});
