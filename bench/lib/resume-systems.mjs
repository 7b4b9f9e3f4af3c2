/**
 * Scenario 2's systems. Each `setup(origin, kernel)` builds its static parts once
 * (tool and agent definitions, a compiled graph) and returns:
 * - `suspend(history)`: runs QUESTION after `history` until the approval tool halts
 *   the run, and returns the serialized state (a string);
 * - `resume(text)`: restores from that string in fresh objects, declines the approval,
 *   finishes the run and returns the final text.
 * `history` is neutral: [{ role: "user" | "assistant", content }], converted by each
 * system to its own message shape outside the timed part.
 */
import { z } from "zod";
import { QUESTION_MARKER } from "./mock-server.mjs";

export const SYSTEM = "You are a support agent. Refunds need a person's approval.";
export const QUESTION = `${QUESTION_MARKER} Please refund $120 on order 42.`;
export const MODEL = "mock-model";
const refundSchema = z.object({ orderId: z.string(), amount: z.number() });
const REFUND_DESC = "Refund an amount on an order (needs approval).";
const refundRun = async ({ orderId, amount }) => `Refunded $${amount} on order ${orderId}`;
const promptFor = ({ orderId, amount }) => `Refund $${amount} on order ${orderId}?`;

export const systems = {
  /** The floor: a hand-written loop whose state is the OpenAI message list plus the halted call id. */
  async raw(origin) {
    const url = `${origin}/approve/v1/chat/completions`;
    const headers = { "content-type": "application/json", authorization: "Bearer bench" };
    const tools = [
      {
        type: "function",
        function: {
          name: "refund_order",
          description: REFUND_DESC,
          parameters: z.toJSONSchema(refundSchema),
        },
      },
    ];
    const call = async (messages) => {
      const res = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: MODEL, messages, tools }),
      });
      if (!res.ok) {
        throw new Error(`HTTP ${res.status}`);
      }
      return (await res.json()).choices[0].message;
    };
    return {
      async suspend(history) {
        const messages = [
          { role: "system", content: SYSTEM },
          ...history,
          { role: "user", content: QUESTION },
        ];
        const message = await call(messages);
        messages.push(message);
        const halted = message.tool_calls.find((c) => c.function.name === "refund_order");
        return JSON.stringify({
          messages,
          pending: { callId: halted.id, prompt: promptFor(JSON.parse(halted.function.arguments)) },
        });
      },
      async resume(text) {
        const state = JSON.parse(text);
        state.messages.push({
          role: "tool",
          tool_call_id: state.pending.callId,
          content: `declined: ${state.pending.prompt}`,
        });
        return (await call(state.messages)).content;
      },
      /** The transcript's own JSON at the suspension (OpenAI message shape). */
      transcriptBytes: (text) => Buffer.byteLength(JSON.stringify(JSON.parse(text).messages)),
    };
  },

  /** This project: run → halted RunResult as JSON → runWithAnswer(answerDeclined) in a fresh client. */
  /** `runWithAnswer` on a client and toolkit made once, as the peers' models and agents are. */
  toolnexus: (origin, kernel) => toolnexusResume(origin, kernel, false),

  /** The same with a new `createClient` + `createToolkit` per suspend and per resume. */
  "toolnexus-fresh": (origin, kernel) => toolnexusResume(origin, kernel, true),

  /** Vercel AI SDK 6: needsApproval; the state is the message list; resume with a tool-approval-response. */
  async "vercel-ai"(origin) {
    const { generateText, tool, stepCountIs } = await import("ai");
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    const model = createOpenAICompatible({
      name: "mock",
      baseURL: `${origin}/approve/v1`,
      apiKey: "bench",
    }).chatModel(MODEL);
    const tools = {
      refund_order: tool({
        description: REFUND_DESC,
        inputSchema: refundSchema,
        needsApproval: true,
        execute: refundRun,
      }),
    };
    const generate = (messages) =>
      generateText({ model, system: SYSTEM, messages, tools, stopWhen: stepCountIs(10) });
    return {
      async suspend(history) {
        const messages = [...history, { role: "user", content: QUESTION }];
        const result = await generate(messages);
        if (!result.content.some((p) => p.type === "tool-approval-request")) {
          throw new Error("vercel-ai did not ask for approval");
        }
        return JSON.stringify([...messages, ...result.response.messages]);
      },
      async resume(text) {
        const messages = JSON.parse(text);
        const last = messages[messages.length - 1];
        const requests = last.content.filter((p) => p.type === "tool-approval-request");
        messages.push({
          role: "tool",
          content: requests.map((r) => ({
            type: "tool-approval-response",
            approvalId: r.approvalId,
            approved: false,
            reason: "declined",
          })),
        });
        return (await generate(messages)).text;
      },
    };
  },

  /** OpenAI Agents SDK: needsApproval; RunState.toString / RunState.fromString + reject. */
  async "openai-agents"(origin) {
    const agents = await import("@openai/agents");
    const { default: OpenAI } = await import("openai");
    agents.setTracingDisabled(true);
    const model = new agents.OpenAIChatCompletionsModel(
      new OpenAI({ baseURL: `${origin}/approve/v1`, apiKey: "bench" }),
      MODEL,
    );
    const agent = new agents.Agent({
      name: "bench",
      instructions: SYSTEM,
      model,
      tools: [
        agents.tool({
          name: "refund_order",
          description: REFUND_DESC,
          parameters: refundSchema,
          needsApproval: true,
          execute: refundRun,
        }),
      ],
    });
    const item = (m) =>
      m.role === "user"
        ? { role: "user", content: m.content }
        : {
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: m.content }],
          };
    return {
      async suspend(history) {
        const result = await agents.run(agent, [
          ...history.map(item),
          { role: "user", content: QUESTION },
        ]);
        if (!result.interruptions?.length) {
          throw new Error("openai-agents did not interrupt");
        }
        return result.state.toString();
      },
      async resume(text) {
        const state = await agents.RunState.fromString(agent, text);
        for (const interruption of state.getInterruptions()) {
          state.reject(interruption);
        }
        return (await agents.run(agent, state)).finalOutput;
      },
    };
  },

  /**
   * LangGraph JS: interrupt() inside the tool, a MemorySaver checkpointer,
   * Command({ resume }). There is no string state API: the state is the checkpointer's
   * thread (its checkpoints and pending writes) exported as JSON (byte values as text);
   * resume loads it into the checkpointer of the graph compiled once at startup.
   */
  async langgraph(origin) {
    const { ChatOpenAI } = await import("@langchain/openai");
    const { tool } = await import("@langchain/core/tools");
    const { MemorySaver, Command, interrupt } = await import("@langchain/langgraph");
    const { createReactAgent } = await import("@langchain/langgraph/prebuilt");
    const saver = new MemorySaver();
    const refund = tool(
      async (args) => {
        const decision = interrupt({ prompt: promptFor(args) });
        return decision?.approved ? refundRun(args) : `declined: ${promptFor(args)}`;
      },
      { name: "refund_order", description: REFUND_DESC, schema: refundSchema },
    );
    const llm = new ChatOpenAI({
      model: MODEL,
      apiKey: "bench",
      configuration: { baseURL: `${origin}/approve/v1` },
      maxRetries: 0,
    });
    const graph = createReactAgent({
      llm,
      tools: [refund],
      checkpointSaver: saver,
      prompt: SYSTEM,
    });
    let threads = 0;
    return {
      async suspend(history) {
        const thread = `thread-${++threads}`;
        const config = { configurable: { thread_id: thread } };
        const result = await graph.invoke(
          { messages: [...history, { role: "user", content: QUESTION }] },
          config,
        );
        if (!result.__interrupt__?.length) {
          throw new Error("langgraph did not interrupt");
        }
        const text = JSON.stringify({ thread, ...exportThread(saver, thread) });
        await saver.deleteThread(thread);
        return text;
      },
      async resume(text) {
        const state = JSON.parse(text);
        importThread(saver, state);
        const result = await graph.invoke(
          new Command({ resume: { approved: false, reason: "declined" } }),
          { configurable: { thread_id: state.thread } },
        );
        await saver.deleteThread(state.thread);
        return result.messages[result.messages.length - 1].content;
      },
    };
  },
};

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const toJson = (v) =>
  v instanceof Uint8Array
    ? { $text: decoder.decode(v) }
    : Array.isArray(v)
      ? v.map(toJson)
      : v && typeof v === "object"
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)]))
        : v;
const fromJson = (v) =>
  v && typeof v === "object" && !Array.isArray(v) && typeof v.$text === "string"
    ? encoder.encode(v.$text)
    : Array.isArray(v)
      ? v.map(fromJson)
      : v && typeof v === "object"
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromJson(x)]))
        : v;

/** A MemorySaver thread (its checkpoints and pending writes) as JSON, byte values as text. */
export function exportThread(saver, thread) {
  const writes = Object.fromEntries(
    Object.entries(saver.writes).filter(([key]) => JSON.parse(key)[0] === thread),
  );
  return { storage: toJson(saver.storage[thread] ?? {}), writes: toJson(writes) };
}

export function importThread(saver, state) {
  saver.storage[state.thread] = fromJson(state.storage);
  for (const [key, value] of Object.entries(fromJson(state.writes))) {
    saver.writes[key] = value;
  }
}

/**
 * toolnexus: the halted `RunResult` as JSON; resume = `runWithAnswer` with a decline.
 * `fresh`: build the client and toolkit per call (what a process that keeps nothing
 * between requests does) instead of once at startup.
 */
async function toolnexusResume(origin, kernel, fresh) {
  const { createClient, createToolkit, defineTool, requireApproval, answerDeclined } = kernel;
  const refund = requireApproval(
    defineTool({
      name: "refund_order",
      description: REFUND_DESC,
      inputSchema: refundSchema,
      run: refundRun,
    }),
    { prompt: promptFor },
  );
  const makeClient = () =>
    createClient({
      baseUrl: `${origin}/approve/v1`,
      style: "openai",
      model: MODEL,
      apiKey: "bench",
      systemPrompt: SYSTEM,
    });
  const makeToolkit = () => createToolkit({ tools: [refund] });
  const once = { client: makeClient(), toolkit: await makeToolkit() };
  const client = fresh ? makeClient : () => once.client;
  const toolkit = fresh ? makeToolkit : async () => once.toolkit;
  return {
    async suspend(history) {
      const result = await client().run(QUESTION, {
        toolkit: await toolkit(),
        history,
      });
      if (result.status !== "pending") {
        throw new Error(`toolnexus did not suspend: ${result.status}`);
      }
      return JSON.stringify(result);
    },
    async resume(text) {
      const halted = JSON.parse(text);
      const result = await client().runWithAnswer({
        ...halted,
        toolkit: await toolkit(),
        history: halted.messages,
        answer: answerDeclined(halted.pending.id),
      });
      return result.text;
    },
  };
}
