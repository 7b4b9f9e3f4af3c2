/**
 * The peers of bench/agents-edge.mjs doing the same work in the same process, each with a
 * scripted in-process model (no HTTP, as the edge's demo models), flat and as a tree:
 * - OpenAI Agents SDK: children as `agent.asTool()`, `needsApproval` on the refund; the
 *   nested interruption surfaces at the coordinator; the state is `RunState.toString()`,
 *   resumed with `RunState.fromString` + `approve`.
 * - LangGraph JS: children as sub-graphs (`createReactAgent`) invoked from the
 *   coordinator's tools, `interrupt()` in the refund, a MemorySaver; the state is the
 *   checkpointer's thread exported as JSON, resumed with `Command({ resume })`; `version: "v2"`
 *   (a task per tool call), so a resume does not run the finished calls again.
 * The model rule is one for every agent: with no tool result since the last user message it
 * calls every tool it has (a sub-agent with `do <name>`), else it answers with the results.
 * `setup(kind)` → `{ suspend(): Promise<string>, resume(state): Promise<string>, counts }`;
 * `counts` holds each tool's executions (the bench checks that finished siblings ran once).
 */
import { z } from "zod";
import { exportThread, importThread } from "./resume-systems.mjs";

const LEAVES = ["lookup_a", "lookup_b"];
const CHILDREN = ["lookup_a", "lookup_b", "refunds"];
const INPUT = "refund order 42";
const order = z.object({ order: z.number() });
const answerOf = (outputs) => (outputs.length > 1 ? `done: ${outputs.join(", ")}` : outputs[0]);
const argsFor = (name) => (name.endsWith("_agent") ? { prompt: `do ${name}` } : { order: 42 });

export const peers = {
  async "openai-agents"(kind) {
    const agents = await import("@openai/agents");
    agents.setTracingDisabled(true);
    const counts = { lookup_a: 0, lookup_b: 0, refund: 0 };
    let ids = 0;
    const outputText = (item) =>
      typeof item.output === "string" ? item.output : (item.output?.text ?? "");
    const model = {
      async getResponse(request) {
        const input = Array.isArray(request.input)
          ? request.input
          : [{ role: "user", content: request.input }];
        const results = input
          .slice(input.findLastIndex((i) => i.role === "user") + 1)
          .filter((i) => i.type === "function_call_result");
        const output = results.length
          ? [
              {
                type: "message",
                role: "assistant",
                status: "completed",
                content: [{ type: "output_text", text: answerOf(results.map(outputText)) }],
              },
            ]
          : request.tools.map((t) => ({
              type: "function_call",
              callId: `call_${++ids}`,
              name: t.name,
              arguments: JSON.stringify(
                t.name.endsWith("_agent") ? { input: `do ${t.name}` } : argsFor(t.name),
              ),
              status: "completed",
            }));
        return { usage: new agents.Usage(), output, responseId: `resp_${++ids}` };
      },
      getStreamedResponse() {
        throw new Error("the bench does not stream");
      },
    };
    const tool = (name) =>
      agents.tool({
        name,
        description: name,
        parameters: order,
        needsApproval: name === "refund",
        execute: async () => {
          counts[name] += 1;
          return name === "refund" ? "refunded" : `${name}: ok`;
        },
      });
    const toolOf = { lookup_a: "lookup_a", lookup_b: "lookup_b", refunds: "refund" };
    const top =
      kind === "flat"
        ? new agents.Agent({
            name: "flat",
            instructions: "flat",
            model,
            tools: [...LEAVES, "refund"].map(tool),
          })
        : new agents.Agent({
            name: "coordinator",
            instructions: "coordinator",
            model,
            tools: CHILDREN.map((name) =>
              new agents.Agent({
                name,
                instructions: name,
                model,
                tools: [tool(toolOf[name])],
              }).asTool({ toolName: `${name}_agent`, toolDescription: name }),
            ),
          });
    return {
      counts,
      async suspend() {
        const halted = await agents.run(top, INPUT);
        if (!halted.interruptions?.length) {
          throw new Error("openai-agents did not interrupt");
        }
        return halted.state.toString();
      },
      async resume(text) {
        const state = await agents.RunState.fromString(top, text);
        for (const interruption of state.getInterruptions()) {
          state.approve(interruption);
        }
        return (await agents.run(top, state)).finalOutput;
      },
    };
  },

  async langgraph(kind) {
    const { BaseChatModel } = await import("@langchain/core/language_models/chat_models");
    const { AIMessage } = await import("@langchain/core/messages");
    const { tool } = await import("@langchain/core/tools");
    const { MemorySaver, Command, interrupt } = await import("@langchain/langgraph");
    const { createReactAgent } = await import("@langchain/langgraph/prebuilt");
    const counts = { lookup_a: 0, lookup_b: 0, refund: 0 };
    let ids = 0;
    class Scripted extends BaseChatModel {
      constructor(tools = []) {
        super({});
        this.bound = tools;
      }
      _llmType() {
        return "scripted";
      }
      bindTools(tools) {
        return new Scripted(tools);
      }
      async _generate(messages) {
        const results = messages
          .slice(messages.findLastIndex((m) => m._getType() === "human") + 1)
          .filter((m) => m._getType() === "tool");
        const message = results.length
          ? new AIMessage({
              id: `m_${++ids}`,
              content: answerOf(results.map((r) => String(r.content))),
            })
          : new AIMessage({
              id: `m_${++ids}`,
              content: "",
              tool_calls: this.bound.map((t) => ({
                id: `call_${++ids}`,
                name: t.name,
                args: argsFor(t.name),
                type: "tool_call",
              })),
            });
        return { generations: [{ message, text: String(message.content) }] };
      }
    }
    const leaf = (name) =>
      tool(
        async () => {
          counts[name] += 1;
          return `${name}: ok`;
        },
        { name, description: name, schema: order },
      );
    const refund = tool(
      async () => {
        const decision = interrupt({ prompt: "Refund order 42?" });
        if (!decision?.approved) {
          return "declined";
        }
        counts.refund += 1;
        return "refunded";
      },
      { name: "refund", description: "refund", schema: order },
    );
    const subgraph = (name, inner) => {
      const graph = createReactAgent({
        llm: new Scripted(),
        tools: [inner],
        prompt: name,
        version: "v2",
      });
      return tool(
        async ({ prompt }, config) => {
          const out = await graph.invoke({ messages: [{ role: "user", content: prompt }] }, config);
          return out.messages.at(-1).content;
        },
        { name: `${name}_agent`, description: name, schema: z.object({ prompt: z.string() }) },
      );
    };
    const saver = new MemorySaver();
    const tools =
      kind === "flat"
        ? [leaf("lookup_a"), leaf("lookup_b"), refund]
        : [
            subgraph("lookup_a", leaf("lookup_a")),
            subgraph("lookup_b", leaf("lookup_b")),
            subgraph("refunds", refund),
          ];
    const graph = createReactAgent({
      llm: new Scripted(),
      tools,
      checkpointSaver: saver,
      prompt: kind,
      // One task per tool call (Send): with the default "v1" the whole tool node runs again on
      // resume, and the flat graph's finished lookups with it (seen: lookup_a ran twice).
      version: "v2",
    });
    let threads = 0;
    return {
      counts,
      async suspend() {
        const thread = `thread-${++threads}`;
        const result = await graph.invoke(
          { messages: [{ role: "user", content: INPUT }] },
          { configurable: { thread_id: thread } },
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
        const result = await graph.invoke(new Command({ resume: { approved: true } }), {
          configurable: { thread_id: state.thread },
        });
        await saver.deleteThread(state.thread);
        return result.messages.at(-1).content;
      },
    };
  },
};
