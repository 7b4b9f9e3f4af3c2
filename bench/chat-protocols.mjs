/**
 * What the chat protocols cost over our own event log: one finished two-turn run (the
 * support agent's "refund $120 on order 42": a tool call that waits for approval, approved
 * through the chat route, the refund, the answer) streamed three ways under `wrangler dev` —
 * `GET /v1/runs/:id/events` (the baseline), `POST /v1/chat/support` (the same message again
 * replays its run as a UI message stream) and `POST /v1/ag-ui/support` (the same message as
 * RunAgentInput replays it as AG-UI events). Each sample reads the whole body; routes are
 * interleaved per round, so drift hits all three alike. Ratios are against /events.
 *
 *   node bench/chat-protocols.mjs [--runs 5] [--rounds 20]
 */
import { startDevServer } from "../scripts/lib/dev-server.mjs";
import { arg, machine, ms, ratio, summarize, table } from "./lib/stats.mjs";

const RUNS = Number(arg("runs", 5));
const ROUNDS = Number(arg("rounds", 20));

const server = await startDevServer({ timeoutMs: 90_000 });
const auth = { authorization: `Bearer ${server.apiToken}` };
const json = { ...auth, "content-type": "application/json" };

async function frames(response) {
  const text = await response.text();
  return text
    .split("\n\n")
    .flatMap((b) => b.split("\n").filter((l) => l.startsWith("data: ")))
    .map((l) => l.slice(6))
    .filter((d) => d && d !== "[DONE]")
    .map((d) => JSON.parse(d));
}

/** One finished conversation: its chat id, user message and run id. */
async function finishedConversation() {
  const id = `bench-${crypto.randomUUID()}`;
  const user = {
    id: `m_${crypto.randomUUID()}`,
    role: "user",
    parts: [{ type: "text", text: "refund $120 on order 42" }],
  };
  const chat = (messages) =>
    fetch(`${server.url}/v1/chat/support`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ id, messages }),
    });
  const first = await frames(await chat([user]));
  const start = first.find((f) => f.type === "start");
  const input = first.find((f) => f.type === "tool-input-available");
  const request = first.find((f) => f.type === "tool-approval-request");
  const assistant = {
    id: start.messageId,
    role: "assistant",
    parts: [
      {
        type: `tool-${input.toolName}`,
        toolCallId: input.toolCallId,
        state: "approval-responded",
        input: input.input,
        approval: { id: request.approvalId, approved: true },
      },
    ],
  };
  const rest = await frames(await chat([user, assistant]));
  if (rest.at(-1)?.type !== "finish") {
    throw new Error(`the run did not finish: ${JSON.stringify(rest.at(-1))}`);
  }
  return { id, user, runId: start.messageId.slice(2) };
}

const routes = {
  events: (c) => fetch(`${server.url}/v1/runs/${c.runId}/events`, { headers: auth }),
  chat: (c) =>
    fetch(`${server.url}/v1/chat/support`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ id: c.id, messages: [c.user] }),
    }),
  "ag-ui": (c) =>
    fetch(`${server.url}/v1/ag-ui/support`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        threadId: c.id,
        runId: "bench",
        messages: [{ id: c.user.id, role: "user", content: "refund $120 on order 42" }],
      }),
    }),
};

async function sample(route, conversation) {
  const started = performance.now();
  const response = await routes[route](conversation);
  const bytes = (await response.arrayBuffer()).byteLength;
  if (response.status !== 200) {
    throw new Error(`${route} answered ${response.status}`);
  }
  return { ms: performance.now() - started, bytes };
}

try {
  const conversations = [];
  for (let i = 0; i < RUNS; i += 1) {
    conversations.push(await finishedConversation());
  }
  const times = { events: [], chat: [], "ag-ui": [] };
  const bytes = { events: [], chat: [], "ag-ui": [] };
  for (const c of conversations) {
    for (const route of Object.keys(routes)) {
      await sample(route, c); // warm-up
    }
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const c of conversations) {
      const order = Object.keys(routes);
      if (round % 2 === 1) {
        order.reverse();
      }
      for (const route of order) {
        const s = await sample(route, c);
        times[route].push(s.ms);
        bytes[route].push(s.bytes);
      }
    }
  }
  const base = summarize(times.events);
  const baseBytes = summarize(bytes.events);
  const rows = Object.keys(routes).map((route) => {
    const t = summarize(times[route]);
    const b = summarize(bytes[route]);
    return [
      route,
      t.n,
      ms(t.median),
      ms(t.p95),
      ratio(t.median, base.median),
      b.median,
      ratio(b.median, baseBytes.median),
    ];
  });
  console.log(machine());
  console.log(
    table(
      `One finished two-turn run streamed whole (${RUNS} runs × ${ROUNDS} rounds, wrangler dev)`,
      ["route", "n", "median ms", "p95 ms", "time vs /events", "bytes", "bytes vs /events"],
      rows,
    ),
  );
} finally {
  await server.stop();
}
