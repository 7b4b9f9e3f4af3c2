/**
 * The edge's side of bench/agents-edge.mjs: the same work as bench/agents-tree.mjs, as
 * createEdge agents with scripted in-process models, for the thread object's storage code
 * (lib/durable-harness.ts) to run against SQLite.
 * - `flat`: one agent with `lookup_a`, `lookup_b` and `refund` (behind an approval); it calls
 *   all three in one turn, halts on the refund, and answers after the decision.
 * - `coordinator`: its team is `lookup_a`, `lookup_b` and `refunds`, each child doing its one
 *   tool in two model turns; `refunds` suspends, the tree halts at the run, the decision goes
 *   to the child, and the coordinator answers with the three results.
 * Both answer "done: lookup_a: ok, lookup_b: ok, refunded". Bundled by esbuild; not product.
 */
import { defineAgent, type AgentDefinition } from "../../src/edge/agent";
import { defineTool } from "../../src/core/tools/define";
import { requireApproval } from "../../src/core/tools/approval";
import type { ModelRequest } from "../../src/core/providers/model";

export { createThread } from "./durable-harness";

const results = (request: ModelRequest) => request.messages.filter((m) => m.role === "tool");
const answer = (request: ModelRequest) => ({
  content: `done: ${results(request)
    .map((m) => m.content)
    .join(", ")}`,
});
const lookup = (name: string) => defineTool({ name, description: name, run: () => `${name}: ok` });
const refund = requireApproval(
  defineTool({ name: "refund", description: "refund", run: () => "refunded" }),
  { prompt: "Refund order 42?" },
);

export const flatAgents: AgentDefinition[] = [
  defineAgent({
    name: "flat",
    description: "does the three jobs itself",
    systemPrompt: "flat",
    tools: [lookup("lookup_a"), lookup("lookup_b"), refund],
    demoModel: (request) =>
      results(request).length === 0
        ? {
            toolCalls: ["lookup_a", "lookup_b", "refund"].map((name) => ({
              name,
              arguments: { order: 42 },
            })),
          }
        : answer(request),
  }),
];

const child = (name: string, tool: ReturnType<typeof defineTool>) =>
  defineAgent({
    name,
    description: `does ${tool.name}`,
    systemPrompt: name,
    tools: [tool],
    demoModel: (request) =>
      results(request).length === 0
        ? { toolCalls: [{ name: tool.name, arguments: { order: 42 } }] }
        : { content: String(results(request)[0]?.content) },
  });

export const treeAgents: AgentDefinition[] = [
  defineAgent({
    name: "coordinator",
    description: "delegates",
    systemPrompt: "coordinator",
    tools: [],
    team: ["lookup_a", "lookup_b", "refunds"],
    demoModel: (request) =>
      results(request).length === 0
        ? {
            toolCalls: ["lookup_a", "lookup_b", "refunds"].map((agent) => ({
              name: "task",
              arguments: { agent, prompt: `do ${agent}` },
            })),
          }
        : answer(request),
  }),
  child("lookup_a", lookup("lookup_a")),
  child("lookup_b", lookup("lookup_b")),
  child("refunds", refund),
];
