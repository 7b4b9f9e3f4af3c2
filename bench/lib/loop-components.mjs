/**
 * What each kernel component costs over loopback: the raw loop of scenario 1 plus ONE
 * piece of the kernel, run in alternating order against the plain raw loop, reporting the
 * median of the per-round differences. In-process profiles understate these costs:
 * between network waits the kernel's code runs cold.
 *
 *   node lib/loop-components.mjs <variant> [rounds=2500]
 *   none    — the raw loop plus the kernel-shaped message bookkeeping only (the control, ≈ 0)
 *   parse   — each reply also goes through the openai style's reply parser
 *   tools   — tool calls go through toolkit.execute (defineTool: validation, result shaping)
 *   direct  — tool.execute without the toolkit
 *   zod     — the raw tools, plus a zod safeParse of the arguments
 *   body    — the request body from the style's bodyText (messages in the kernel's shape)
 *   bodyobj — the same body built as an object and JSON.stringify'd
 */
import { z } from "zod";
import { startMock } from "./mock-server.mjs";
import { systems, SYSTEM, QUESTION, MODEL, RAW_IMPL, toolnexusSetup } from "./loop-systems.mjs";
import { importKernel, importTs } from "./build.mjs";

const variant = process.argv[2] ?? "none";
const rounds = Number(process.argv[3] ?? 2500);
const kernel = await importKernel();
const style = (
  await importTs("src/core/providers/openai/index.ts", "style-only", { external: ["zod"] })
).openaiStyle;
const mock = await startMock();
const url = `${mock.origin}/loop/v1/chat/completions`;
const headers = { "content-type": "application/json", authorization: "Bearer bench" };
const { toolkit } = await toolnexusSetup(mock.origin, kernel);
const wireTools = toolkit.toOpenAI();
const schemas = {
  get_weather: z.object({ city: z.string() }),
  add: z.object({ a: z.number(), b: z.number() }),
};
const impl = RAW_IMPL;

function requestBody(messages, internal) {
  const request = { model: MODEL, messages: internal, tools: toolkit.tools() };
  if (variant === "body") {
    return style.bodyText(request);
  }
  if (variant === "bodyobj") {
    return JSON.stringify(style.body(request));
  }
  return JSON.stringify({ model: MODEL, messages, tools: wireTools });
}

async function runTool(call) {
  const args = JSON.parse(call.arguments);
  if (variant === "tools") {
    return (await toolkit.execute(call.name, args, { callId: call.id })).output;
  }
  if (variant === "direct") {
    return (await toolkit.get(call.name).execute(args, { callId: call.id })).output;
  }
  if (variant === "zod") {
    schemas[call.name].safeParse(args);
  }
  return impl[call.name](args);
}

async function withComponent() {
  const messages = [
    { role: "system", content: SYSTEM },
    { role: "user", content: QUESTION },
  ];
  const internal = [
    { role: "system", content: SYSTEM },
    { role: "user", content: QUESTION },
  ];
  for (let turn = 0; turn < 10; turn += 1) {
    const res = await fetch(url, {
      method: "POST",
      headers,
      body: requestBody(messages, internal),
    });
    const json = await res.json();
    const message = json.choices[0].message;
    const calls =
      variant === "parse"
        ? style.parse(json, MODEL).toolCalls
        : (message.tool_calls ?? []).map((c) => ({
            id: c.id,
            name: c.function.name,
            arguments: c.function.arguments,
          }));
    messages.push(message);
    internal.push({
      role: "assistant",
      content: message.content,
      ...(calls.length ? { toolCalls: calls } : {}),
    });
    if (!calls.length) {
      return message.content;
    }
    const outputs = await Promise.all(calls.map(runTool));
    calls.forEach((c, i) => {
      messages.push({ role: "tool", tool_call_id: c.id, content: outputs[i] });
      internal.push({ role: "tool", toolCallId: c.id, name: c.name, content: outputs[i] });
    });
  }
  throw new Error("too many turns");
}

try {
  const run = { base: await systems.raw(mock.origin), other: withComponent };
  for (let i = 0; i < 500; i += 1) {
    for (const n of ["base", "other"]) {
      await run[n]();
    }
  }
  const times = { base: [], other: [] };
  for (let i = 0; i < rounds; i += 1) {
    for (const n of i % 2 ? ["base", "other"] : ["other", "base"]) {
      const t = performance.now();
      await run[n]();
      times[n].push(performance.now() - t);
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  const paired = times.other.map((x, i) => x - times.base[i]);
  console.log(
    `${variant}: +${(1000 * median(paired)).toFixed(1)} µs per two-turn run over the raw loop (paired median of ${rounds} rounds; raw median ${median(times.base).toFixed(3)} ms)`,
  );
} finally {
  await mock.stop();
}
