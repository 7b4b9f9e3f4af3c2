/**
 * What the chat protocols cost over our own event log, for the support agent's two-turn run
 * ("refund $120 on order 42": a tool call that waits for approval, the approval, the refund,
 * the answer), under `wrangler dev`, two ways:
 *
 * 1. Live: the run itself, streamed as it happens. Baseline: `POST /v1/runs`, read
 *    `/v1/runs/:id/events` to the `pending` event, approve with a signed `POST
 *    /v1/decisions`, read on to `done`. Chat: `POST /v1/chat/support` (read to its finish
 *    at the halt), then the follow-up carrying the approval (read to the end). AG-UI: a
 *    RunAgentInput (read to the interrupt), then one with `resume`. Time is the whole
 *    exchange, first request to last byte; bytes are every response body read.
 * 2. Replay: one finished run streamed whole (the same message again replays it).
 *
 * Routes are interleaved per round, so drift hits all three alike. Ratios are against /events.
 * Last, one live exchange per route is broken down by frame kind (the SSE event name for
 * /events, the chunk or event `type` for the others; `: comment` lines counted apart), so
 * the table says where each route's bytes go; and one AG-UI exchange is cut down to the
 * fields AG-UI requires (and those issue 27 names for an interrupt): the least any
 * conforming server could send for this run with these client ids.
 *
 *   node bench/chat-protocols.mjs [--runs 5] [--rounds 20] [--live 20]
 */
import { startDevServer } from "../scripts/lib/dev-server.mjs";
import { webhookHeaders } from "../scripts/lib/webhooks.mjs";
import { arg, machine, ms, ratio, summarize, table } from "./lib/stats.mjs";

const RUNS = Number(arg("runs", 5));
const ROUNDS = Number(arg("rounds", 20));
const LIVE = Number(arg("live", 20));

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

const TEXT = "refund $120 on order 42";
const userOf = () => ({
  id: `m_${crypto.randomUUID()}`,
  role: "user",
  parts: [{ type: "text", text: TEXT }],
});

/** Reads an SSE body until `stop(frameText)` or its end; returns the bytes read. */
async function readUntil(response, stop = () => false) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      return { text, bytes };
    }
    bytes += value.byteLength;
    text += decoder.decode(value, { stream: true });
    if (stop(text)) {
      await reader.cancel();
      return { text, bytes };
    }
  }
}

const dataFrames = (text) =>
  text
    .split("\n\n")
    .filter((b) => b.startsWith("data: {"))
    .map((b) => JSON.parse(b.slice(6)));

const live = {
  async events() {
    const started = await fetch(`${server.url}/v1/runs`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ agent: "support", input: TEXT }),
    });
    const { runId } = await started.json();
    const stream = await fetch(`${server.url}/v1/runs/${runId}/events`, { headers: auth });
    const reader = stream.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let bytes = 0;
    let decided = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
      const pending = /event: pending\ndata: (.*)\n\n/.exec(text);
      if (pending && !decided) {
        decided = true;
        const body = JSON.stringify({
          runId,
          requestId: JSON.parse(pending[1]).request.id,
          decision: "approve",
        });
        const answer = await fetch(`${server.url}/v1/decisions`, {
          method: "POST",
          headers: webhookHeaders(server.webhookSecrets[0], body),
          body,
        });
        if (answer.status !== 202) {
          throw new Error(`decision answered ${answer.status}`);
        }
      }
    }
    if (!text.includes("event: done")) {
      throw new Error(`the /events run did not finish: ${text.slice(-400)}`);
    }
    return { bytes, bodies: [text] };
  },
  async chat() {
    const id = `live-${crypto.randomUUID()}`;
    const user = userOf();
    const post = (messages) =>
      fetch(`${server.url}/v1/chat/support`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ id, messages }),
      });
    const first = await readUntil(await post([user]));
    const frames = dataFrames(first.text);
    const start = frames.find((f) => f.type === "start");
    const input = frames.find((f) => f.type === "tool-input-available");
    const request = frames.find((f) => f.type === "tool-approval-request");
    const assistant = {
      id: start.messageId,
      role: "assistant",
      parts: [
        {
          type: `tool-${input.toolName}`,
          toolCallId: input.toolCallId,
          state: "approval-responded",
          input: input.input,
          approval: {
            id: request.approvalId,
            descriptor: request.approvalDescriptor,
            approved: true,
          },
        },
      ],
    };
    const second = await readUntil(await post([user, assistant]));
    if (dataFrames(second.text).at(-1)?.finishReason !== "stop") {
      throw new Error("the chat run did not finish");
    }
    return { bytes: first.bytes + second.bytes, bodies: [first.text, second.text] };
  },
  async "ag-ui"() {
    const threadId = `live-${crypto.randomUUID()}`;
    const messages = [{ id: `m_${crypto.randomUUID()}`, role: "user", content: TEXT }];
    const post = (extra) =>
      fetch(`${server.url}/v1/ag-ui/support`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ threadId, runId: `r_${crypto.randomUUID()}`, messages, ...extra }),
      });
    const first = await readUntil(await post({}));
    const [interrupt] = dataFrames(first.text).at(-1).outcome.interrupts;
    const second = await readUntil(
      await post({
        resume: [
          {
            interruptId: interrupt.id,
            status: "resolved",
            payload: { approved: true, argsHash: interrupt.metadata.argsHash },
          },
        ],
      }),
    );
    const end = dataFrames(second.text).at(-1);
    if (end?.type !== "RUN_FINISHED" || (end.outcome && end.outcome.type !== "success")) {
      throw new Error("the AG-UI run did not finish");
    }
    return { bytes: first.bytes + second.bytes, bodies: [first.text, second.text] };
  },
};

async function liveSample(route) {
  const started = performance.now();
  const { bytes } = await live[route]();
  return { ms: performance.now() - started, bytes };
}

/** A body's frames by kind: `{ kind → { frames, bytes } }`, each frame with its blank line. */
function byKind(body) {
  const kinds = new Map();
  for (const frame of body.split("\n\n").filter(Boolean)) {
    const data = /^data: (.*)$/m.exec(frame)?.[1];
    const kind = frame.startsWith(":")
      ? frame
      : (/^event: (.*)$/m.exec(frame)?.[1] ??
        (data === "[DONE]" ? "[DONE]" : (JSON.parse(data ?? "{}").type ?? "?")));
    const entry = kinds.get(kind) ?? { frames: 0, bytes: 0 };
    entry.frames += 1;
    entry.bytes += Buffer.byteLength(`${frame}\n\n`);
    kinds.set(kind, entry);
  }
  return kinds;
}

/**
 * What each event this run sends must keep to mean what it does, by `@ag-ui/core` 1.0's
 * schemas: the fields without `.optional()`; for the chunk events, whose fields are all
 * optional, what a segment's first chunk needs to open it (its id, the tool's name) and its
 * content; for RUN_FINISHED the `outcome`, which is what says the run paused. An interrupt
 * keeps its required `id` and `reason`. CUSTOM events (our decisions) are optional
 * altogether, and dropped.
 */
const REQUIRED = {
  RUN_STARTED: ["type", "threadId", "runId"],
  RUN_FINISHED: ["type", "threadId", "runId", "outcome"],
  TOOL_CALL_CHUNK: ["type", "toolCallId", "toolCallName", "delta"],
  TOOL_CALL_RESULT: ["type", "messageId", "toolCallId", "content"],
  TEXT_MESSAGE_CHUNK: ["type", "messageId", "delta"],
};
const INTERRUPT_REQUIRED = ["id", "reason"];
/** What issue 27 names for every interrupt besides those. */
const ISSUE_INTERRUPT = ["message", "toolCallId", "responseSchema", "expiresAt"];
const pick = (object, keys) =>
  Object.fromEntries(keys.filter((k) => k in object).map((k) => [k, object[k]]));

/** The bytes of `body`'s AG-UI frames with only the required fields (and `interruptKeys`) kept. */
function floorBytes(body, interruptKeys) {
  let bytes = 0;
  for (const frame of dataFrames(body)) {
    const keys = REQUIRED[frame.type];
    if (!keys) {
      continue;
    }
    const kept = pick(frame, keys);
    if (kept.outcome?.type === "interrupt") {
      kept.outcome = {
        type: "interrupt",
        interrupts: kept.outcome.interrupts.map((i) =>
          pick(i, [...INTERRUPT_REQUIRED, ...interruptKeys]),
        ),
      };
    }
    bytes += Buffer.byteLength(`data: ${JSON.stringify(kept)}\n\n`);
  }
  return bytes;
}

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
  const liveTimes = { events: [], chat: [], "ag-ui": [] };
  const liveBytes = { events: [], chat: [], "ag-ui": [] };
  for (const route of Object.keys(live)) {
    await liveSample(route); // warm-up
  }
  for (let round = 0; round < LIVE; round += 1) {
    const order = Object.keys(live);
    if (round % 2 === 1) {
      order.reverse();
    }
    for (const route of order) {
      const s = await liveSample(route);
      liveTimes[route].push(s.ms);
      liveBytes[route].push(s.bytes);
    }
  }
  const liveBase = summarize(liveTimes.events);
  const liveBaseBytes = summarize(liveBytes.events);
  const liveRows = Object.keys(live).map((route) => {
    const t = summarize(liveTimes[route]);
    const b = summarize(liveBytes[route]);
    return [
      route,
      t.n,
      ms(t.median),
      ms(t.p95),
      ratio(t.median, liveBase.median),
      b.median,
      ratio(b.median, liveBaseBytes.median),
    ];
  });
  console.log(machine());
  console.log(
    table(
      `The two-turn run streamed live: start, halt, approve, finish (${LIVE} rounds, wrangler dev)`,
      ["route", "n", "median ms", "p95 ms", "time vs /events", "bytes", "bytes vs /events"],
      liveRows,
    ),
  );
  console.log(
    table(
      `One finished two-turn run streamed whole (${RUNS} runs × ${ROUNDS} rounds, wrangler dev)`,
      ["route", "n", "median ms", "p95 ms", "time vs /events", "bytes", "bytes vs /events"],
      rows,
    ),
  );
  const breakdown = [];
  for (const route of Object.keys(live)) {
    const { bodies } = await live[route]();
    for (const [kind, { frames, bytes }] of byKind(bodies.join(""))) {
      breakdown.push([route, kind, frames, bytes]);
    }
  }
  console.log(
    table(
      "Where the bytes of one live exchange go (every response body of the stream, by frame kind)",
      ["route", "frame kind", "frames", "bytes"],
      breakdown,
    ),
  );
  const agUi = (await live["ag-ui"]()).bodies.join("");
  const events = (await live.events()).bytes;
  const floors = [
    ["as sent", Buffer.byteLength(agUi)],
    ["AG-UI's required fields + the issue's interrupt fields", floorBytes(agUi, ISSUE_INTERRUPT)],
    ["AG-UI's required fields only", floorBytes(agUi, [])],
  ].map(([what, bytes]) => [what, bytes, ratio(bytes, events)]);
  console.log(
    table(
      `The least an AG-UI exchange of this run can carry (its own frames, optional fields and CUSTOM events dropped; /events: ${events} bytes)`,
      ["AG-UI live exchange", "bytes", "vs /events"],
      floors,
    ),
  );
} finally {
  await server.stop();
}
