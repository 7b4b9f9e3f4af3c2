/**
 * Scenario 1 streamed: the same question, tools and mock as loop-systems.mjs, with every
 * reply asked for and read as Server-Sent Events (`stream: true`), each text delta handed
 * to a consumer as it arrives (a counter here). `run()` resolves with the final text.
 */
import {
  MODEL,
  QUESTION,
  RAW_IMPL,
  RAW_TOOLS,
  SYSTEM,
  add,
  addSchema,
  systems as plain,
  toolnexusSetup,
  weather,
  weatherSchema,
} from "./loop-systems.mjs";

/** Where streamed text goes: counted, so no system can skip producing it. */
export const sink = { deltas: 0 };
const onText = () => {
  sink.deltas += 1;
};

export const systems = {
  /**
   * The floor: a hand-written SSE loop. Read the body, split events on blank lines,
   * `JSON.parse` each `data:` line, add text deltas and tool-call pieces by index; no
   * validation, retries, metrics or hooks.
   */
  async raw(origin, _kernel, fetchImpl = fetch) {
    const url = `${origin}/loop/v1/chat/completions`;
    const headers = { "content-type": "application/json", authorization: "Bearer bench" };
    return async function run() {
      const messages = [
        { role: "system", content: SYSTEM },
        { role: "user", content: QUESTION },
      ];
      for (let turn = 0; turn < 10; turn += 1) {
        const res = await fetchImpl(url, {
          method: "POST",
          headers,
          body: JSON.stringify({
            model: MODEL,
            messages,
            tools: RAW_TOOLS,
            stream: true,
            stream_options: { include_usage: true },
          }),
        });
        if (!res.ok) {
          throw new Error(`HTTP ${res.status}`);
        }
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        let content = "";
        const calls = [];
        let finished = false;
        while (!finished) {
          const { done, value } = await reader.read();
          if (done) {
            break;
          }
          buffer += decoder.decode(value, { stream: true });
          let end = buffer.indexOf("\n\n");
          while (end >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf("\n\n");
            if (!event.startsWith("data: ")) {
              continue;
            }
            const data = event.slice(6);
            if (data === "[DONE]") {
              finished = true;
              break;
            }
            const delta = JSON.parse(data).choices[0]?.delta;
            if (!delta) {
              continue;
            }
            if (delta.content) {
              content += delta.content;
              onText(delta.content);
            }
            for (const piece of delta.tool_calls ?? []) {
              calls[piece.index] ??= { id: "", name: "", arguments: "" };
              const call = calls[piece.index];
              call.id ||= piece.id ?? "";
              call.name ||= piece.function?.name ?? "";
              call.arguments += piece.function?.arguments ?? "";
            }
          }
        }
        await reader.cancel();
        const toolCalls = calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        }));
        messages.push({
          role: "assistant",
          content: content || null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        });
        if (!toolCalls.length) {
          return content;
        }
        const results = await Promise.all(
          toolCalls.map(async (c) => ({
            role: "tool",
            tool_call_id: c.id,
            content: await RAW_IMPL[c.function.name](JSON.parse(c.function.arguments)),
          })),
        );
        messages.push(...results);
      }
      throw new Error("too many turns");
    };
  },

  /** `client.stream()`: the async iterator of run events (what an application loops over). */
  async toolnexus(origin, kernel, fetchImpl) {
    const client = await toolnexusSetup(origin, kernel, fetchImpl);
    return async function run() {
      let text;
      for await (const event of client.client.stream(QUESTION, { toolkit: client.toolkit })) {
        if (event.type === "text") {
          onText(event.delta);
        } else if (event.type === "done") {
          text = event.result.text;
        }
      }
      return text;
    };
  },

  /** `ask(prompt, { onText })`: the same stream into a callback (the edge's way: `streaming` + `onEvent`). */
  async "toolnexus-ontext"(origin, kernel, fetchImpl) {
    const client = await toolnexusSetup(origin, kernel, fetchImpl);
    return async function run() {
      const result = await client.client.ask(QUESTION, { toolkit: client.toolkit, onText });
      return result.text;
    };
  },

  /** Vercel AI SDK 6: `streamText` with tools and a step limit. */
  async "vercel-ai"(origin, _kernel, fetchImpl) {
    const { streamText, tool, stepCountIs } = await import("ai");
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    const provider = createOpenAICompatible({
      name: "mock",
      baseURL: `${origin}/loop/v1`,
      apiKey: "bench",
      includeUsage: true,
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    });
    const model = provider.chatModel(MODEL);
    const tools = {
      get_weather: tool({
        description: "Current weather for a city.",
        inputSchema: weatherSchema,
        execute: weather,
      }),
      add: tool({ description: "Add two numbers.", inputSchema: addSchema, execute: add }),
    };
    return async function run() {
      const result = streamText({
        model,
        system: SYSTEM,
        prompt: QUESTION,
        tools,
        stopWhen: stepCountIs(10),
      });
      for await (const delta of result.textStream) {
        onText(delta);
      }
      return await result.text;
    };
  },

  /** OpenAI Agents SDK: `run(agent, q, { stream: true })`, text deltas from `toTextStream()`. */
  async "openai-agents"(origin, kernel, fetchImpl) {
    const agents = await import("@openai/agents");
    const built = await plain["openai-agents"](origin, kernel, fetchImpl);
    const agent = built.agent;
    return async function run() {
      const result = await agents.run(agent, QUESTION, { stream: true });
      for await (const delta of result.toTextStream()) {
        onText(delta);
      }
      await result.completed;
      return result.finalOutput;
    };
  },
};
