/**
 * Scenario 1's systems. Each `setup(origin)` builds its client once (what a server
 * does at startup) and returns `run()`, one full question: turn 1 asks for
 * get_weather + add at once, the tools run, turn 2 answers. `run()` resolves with
 * the final text. Tools are the same everywhere: zod-typed wherever the system takes
 * a schema; the raw loop does no validation (it is the floor). `fetchImpl`, when
 * given, replaces the network for every system (the in-process variant).
 */
import { z } from "zod";
import { QUESTION_MARKER } from "./mock-server.mjs";

export const SYSTEM = "You are a helpful assistant. Use the tools when they help.";
export const QUESTION = `${QUESTION_MARKER} What is the weather in Paris, and what is 40 + 2?`;
export const MODEL = "mock-model";

export const weather = async ({ city }) => JSON.stringify({ city, forecast: "sunny-17C" });
export const add = async ({ a, b }) => String(a + b);
export const weatherSchema = z.object({ city: z.string().describe("City name") });
export const addSchema = z.object({ a: z.number(), b: z.number() });
const WEATHER_DESC = "Current weather for a city.";
const ADD_DESC = "Add two numbers.";

/** The raw loops' tools: the wire form of the same two tools. */
export const RAW_TOOLS = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: WEATHER_DESC,
      parameters: z.toJSONSchema(weatherSchema),
    },
  },
  {
    type: "function",
    function: { name: "add", description: ADD_DESC, parameters: z.toJSONSchema(addSchema) },
  },
];
export const RAW_IMPL = { get_weather: weather, add };

/**
 * toolnexus' client and toolkit for scenario 1 (plain and streamed), with the tools' input
 * schemas as zod or, with `jsonSchemas`, as the JSON Schema zod gives for them.
 */
export async function toolnexusSetup(origin, kernel, fetchImpl, jsonSchemas = false, extra = {}) {
  const { createClient, createToolkit, defineTool } = kernel;
  const schema = (zodSchema) => (jsonSchemas ? z.toJSONSchema(zodSchema) : zodSchema);
  const toolkit = await createToolkit({
    tools: [
      defineTool({
        name: "get_weather",
        description: WEATHER_DESC,
        inputSchema: schema(weatherSchema),
        run: weather,
      }),
      defineTool({ name: "add", description: ADD_DESC, inputSchema: schema(addSchema), run: add }),
    ],
  });
  const client = createClient({
    baseUrl: `${origin}/loop/v1`,
    style: "openai",
    model: MODEL,
    apiKey: "bench",
    systemPrompt: SYSTEM,
    maxTurns: 10,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    ...extra,
  });
  return { client, toolkit };
}

export const systems = {
  /** The floor: a hand-written fetch loop, no validation, no retries, no telemetry. */
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
          body: JSON.stringify({ model: MODEL, messages, tools: RAW_TOOLS }),
        });
        if (!res.ok) {
          throw new Error(`HTTP ${res.status}`);
        }
        const message = (await res.json()).choices[0].message;
        messages.push(message);
        if (!message.tool_calls?.length) {
          return message.content;
        }
        const results = await Promise.all(
          message.tool_calls.map(async (c) => ({
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

  /** This project: createClient (openai style) + createToolkit + defineTool. */
  async toolnexus(origin, kernel, fetchImpl) {
    const { client, toolkit } = await toolnexusSetup(origin, kernel, fetchImpl);
    return async function run() {
      const result = await client.run(QUESTION, { toolkit });
      return result.text;
    };
  },

  /**
   * The same tools with JSON-Schema input schemas (what MCP tools and many hand-written
   * tools are): the schemas zod's toJSONSchema gives for the zod variant.
   */
  async "toolnexus-json"(origin, kernel, fetchImpl) {
    const { client, toolkit } = await toolnexusSetup(origin, kernel, fetchImpl, true);
    return async function run() {
      const result = await client.run(QUESTION, { toolkit });
      return result.text;
    };
  },

  /** Vercel AI SDK 6: generateText with tools and a step limit, OpenAI-compatible provider. */
  async "vercel-ai"(origin, _kernel, fetchImpl) {
    const { generateText, tool, stepCountIs } = await import("ai");
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    const provider = createOpenAICompatible({
      name: "mock",
      baseURL: `${origin}/loop/v1`,
      apiKey: "bench",
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    });
    const model = provider.chatModel(MODEL);
    const tools = {
      get_weather: tool({
        description: WEATHER_DESC,
        inputSchema: weatherSchema,
        execute: weather,
      }),
      add: tool({ description: ADD_DESC, inputSchema: addSchema, execute: add }),
    };
    return async function run() {
      const result = await generateText({
        model,
        system: SYSTEM,
        prompt: QUESTION,
        tools,
        stopWhen: stepCountIs(10),
      });
      return result.text;
    };
  },

  /** OpenAI Agents SDK on chat completions, tracing off. */
  async "openai-agents"(origin, _kernel, fetchImpl) {
    const agents = await import("@openai/agents");
    const { default: OpenAI } = await import("openai");
    agents.setTracingDisabled(true);
    agents.setOpenAIAPI("chat_completions");
    // The model object is the same one setDefaultOpenAIClient + setOpenAIAPI("chat_completions")
    // would build; passing it keeps the socket and in-process variants apart in one process.
    const client = new OpenAI({
      baseURL: `${origin}/loop/v1`,
      apiKey: "bench",
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    });
    const agent = new agents.Agent({
      name: "bench",
      instructions: SYSTEM,
      model: new agents.OpenAIChatCompletionsModel(client, MODEL),
      tools: [
        agents.tool({
          name: "get_weather",
          description: WEATHER_DESC,
          parameters: weatherSchema,
          execute: weather,
        }),
        agents.tool({ name: "add", description: ADD_DESC, parameters: addSchema, execute: add }),
      ],
    });
    const run = async () => (await agents.run(agent, QUESTION)).finalOutput;
    run.agent = agent; // the streamed variant (stream-systems.mjs) runs the same agent
    return run;
  },
};
