/**
 * A mock OpenAI-compatible chat-completions server (node:http, keep-alive) on 127.0.0.1.
 * Run it as a child process (`startMock()`), so its work does not share the measured
 * client's event loop.
 *
 * Paths pick the scenario, the transcript picks the turn: while the last tool result
 * comes before the last occurrence of QUESTION_MARKER, the model asks for tools;
 * after it, the model answers in text.
 * - /loop/v1/chat/completions: two tool calls at once (get_weather + add), then a final
 *   text that proves both results arrived ("BAD" otherwise).
 * - /approve/v1/chat/completions: one refund_order call (an approval tool), then text.
 * Every response has a unique id, and every tool call a unique id (LangChain merges
 * messages by id). A body with `"stream": true` gets the same reply as Server-Sent Events.
 */
import http from "node:http";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

export const QUESTION_MARKER = "[bench-q]";
export const LOOP_FINAL = "Paris is sunny-17C and 40 + 2 = 42.";
export const APPROVE_FINAL = "Understood: I did not refund order 42.";

const TOOL_ROLE = /"role"\s*:\s*"tool"/g;

function lastToolIndex(body) {
  let last = -1;
  TOOL_ROLE.lastIndex = 0;
  let m = TOOL_ROLE.exec(body);
  while (m) {
    last = m.index;
    m = TOOL_ROLE.exec(body);
  }
  return last;
}

let counter = 0;
const prefix = Math.random().toString(36).slice(2, 8);

function completion(message, finish) {
  counter += 1;
  return {
    id: `chatcmpl-${prefix}-${counter}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "mock-model",
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
  };
}

const call = (name, args) => ({
  id: `call_${prefix}_${counter + 1}_${name}`,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});

export function reply(path, body) {
  const final = lastToolIndex(body) > body.lastIndexOf(QUESTION_MARKER);
  if (path.startsWith("/loop/")) {
    if (!final) {
      return completion(
        {
          role: "assistant",
          content: null,
          tool_calls: [call("get_weather", { city: "Paris" }), call("add", { a: 40, b: 2 })],
        },
        "tool_calls",
      );
    }
    const ok = body.includes("sunny-17C") && /(?:\\"|[^0-9])42(?:\\"|[^0-9])/.test(body);
    return completion(
      { role: "assistant", content: ok ? LOOP_FINAL : "BAD: tool results missing" },
      "stop",
    );
  }
  if (path.startsWith("/approve/")) {
    if (!final) {
      return completion(
        {
          role: "assistant",
          content: null,
          tool_calls: [call("refund_order", { orderId: "42", amount: 120 })],
        },
        "tool_calls",
      );
    }
    return completion({ role: "assistant", content: APPROVE_FINAL }, "stop");
  }
  return undefined;
}

/**
 * A completion as chat-completion chunks in Server-Sent Events, cut the way OpenAI cuts
 * them: a role chunk; text in word-sized deltas; each tool call opened with its id and
 * name, then its arguments in 4-character slices; the finish chunk; a usage chunk; [DONE].
 */
export function sseOf(out) {
  const { id, created, model, choices, usage } = out;
  const message = choices[0].message;
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;
  let sse = chunk({ role: "assistant", content: "" });
  for (const piece of (message.content ?? "").match(/\S+\s*/g) ?? []) {
    sse += chunk({ content: piece });
  }
  (message.tool_calls ?? []).forEach((call, index) => {
    sse += chunk({
      tool_calls: [
        {
          index,
          id: call.id,
          type: "function",
          function: { name: call.function.name, arguments: "" },
        },
      ],
    });
    for (let i = 0; i < call.function.arguments.length; i += 4) {
      const slice = call.function.arguments.slice(i, i + 4);
      sse += chunk({ tool_calls: [{ index, function: { arguments: slice } }] });
    }
  });
  sse += chunk({}, choices[0].finish_reason);
  sse += `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`;
  return `${sse}data: [DONE]\n\n`;
}

const wantsStream = (body) => /"stream"\s*:\s*true/.test(body);

export function createMockServer() {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const out =
        req.method === "POST" && req.url.endsWith("/chat/completions")
          ? reply(req.url, body)
          : undefined;
      const stream = out && wantsStream(body);
      const text = stream
        ? sseOf(out)
        : JSON.stringify(out ?? { error: { message: `no route ${req.method} ${req.url}` } });
      res.writeHead(out ? 200 : 404, {
        "content-type": stream ? "text/event-stream" : "application/json",
        "content-length": Buffer.byteLength(text),
      });
      res.end(text);
    });
  });
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  return server;
}

/**
 * The same mock as an in-process `fetch` (no sockets, no second process): isolates a
 * client's own work from the network and from the machine's scheduling noise.
 */
export async function mockFetch(input, init = {}) {
  const url = new URL(
    typeof input === "string" ? input : input instanceof URL ? input.href : input.url,
  );
  const body = typeof init.body === "string" ? init.body : await new Request(input, init).text();
  const out = reply(url.pathname, body);
  if (out && wantsStream(body)) {
    return new Response(sseOf(out), { headers: { "content-type": "text/event-stream" } });
  }
  return new Response(JSON.stringify(out ?? { error: { message: "no route" } }), {
    status: out ? 200 : 404,
    headers: { "content-type": "application/json" },
  });
}

/** Starts the mock in a child process; resolves with its base URL and a stop(). */
export function startMock() {
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("mock server did not start in 10 s")), 10_000);
    child.once("error", reject);
    child.once("message", ({ port }) => {
      clearTimeout(timer);
      resolve({
        origin: `http://127.0.0.1:${port}`,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) {
              done();
              return;
            }
            child.once("exit", done);
            child.kill("SIGTERM");
          }),
      });
    });
  });
}

if (process.argv[2] === "--serve") {
  const server = createMockServer();
  server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
  process.on("disconnect", () => process.exit(0));
  process.on("SIGTERM", () => process.exit(0));
}
