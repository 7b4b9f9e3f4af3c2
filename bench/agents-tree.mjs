/**
 * Scenario — agents that delegate (SPEC §7D), in process (Node). The same work done two ways
 * with a scripted in-process model, so only the kernel's own work is measured:
 * - flat (baseline): one client, one toolkit with the three tools (`lookup_a`, `lookup_b`, and
 *   `refund` behind an approval); the model calls all three in one turn, the run halts on the
 *   refund, `runWithAnswer` approves it, one more turn answers.
 * - tree: a coordinator with three children (`lookup_a`, `lookup_b`, `refunds`), each doing its
 *   tool in two model turns; the refunds child suspends, the tree halts `pending` at the root,
 *   `runtime.runWithAnswer` routes the approval to the child, the coordinator replays its turn
 *   and reattaches to the three children.
 * Rows: phase 1 (start → pending), resume (answer → done), the sum; the "overhead per handle"
 * is (tree − flat) / 4 handles. Both run interleaved (order alternating) after a warm-up, in
 * one process. Model turns are free here, so the tree's six extra model calls count as
 * kernel work (each is a loop turn and a toolkit call). Durable writes are an edge measure
 * (the Durable Object); the kernel row reports the JSON snapshot a host would persist at the halt.
 *
 *   node agents-tree.mjs [--runs 2000] [--warmup 1000]
 */
import { performance } from "node:perf_hooks";
import { importKernel } from "./lib/build.mjs";
import { summarize, table, ms, ratio, arg, machine } from "./lib/stats.mjs";

const RUNS = Number(arg("runs", 2000));
const WARMUP = Number(arg("warmup", 1000));
const k = await importKernel();

const toolMessages = (request) => request.messages.filter((m) => m.role === "tool");
const lookup = (name) => k.defineTool({ name, description: name, run: () => `${name}: ok` });
const refund = k.requireApproval(
  k.defineTool({ name: "refund", description: "refund", run: () => "refunded" }),
);

function flatGenerate(request) {
  return toolMessages(request).length === 0
    ? {
        toolCalls: [
          { name: "lookup_a" },
          { name: "lookup_b" },
          { name: "refund", arguments: { order: 42 } },
        ],
      }
    : {
        content: `done: ${toolMessages(request)
          .map((m) => m.content)
          .join(", ")}`,
      };
}

const CHILD_TOOL = { "m-a": "lookup_a", "m-b": "lookup_b", "m-refunds": "refund" };
function treeGenerate(request) {
  if (request.model === "m-coordinator") {
    return toolMessages(request).length === 0
      ? {
          toolCalls: ["lookup_a", "lookup_b", "refunds"].map((agent) => ({
            name: "task",
            arguments: { agent, prompt: `do ${agent}` },
          })),
        }
      : {
          content: `done: ${toolMessages(request)
            .map((m) => m.content)
            .join(", ")}`,
        };
  }
  const results = toolMessages(request);
  return results.length === 0
    ? { toolCalls: [{ name: CHILD_TOOL[request.model], arguments: { order: 42 } }] }
    : { content: results[0].content };
}

const flatToolkit = await k.createToolkit({
  tools: [lookup("lookup_a"), lookup("lookup_b"), refund],
});
const flatClient = k.createInProcessClient({ model: "m", generate: flatGenerate });
const agents = [
  {
    name: "coordinator",
    does: "delegates",
    model: "m-coordinator",
    team: ["lookup_a", "lookup_b", "refunds"],
  },
  { name: "lookup_a", does: "looks up a", model: "m-a", tools: [lookup("lookup_a")] },
  { name: "lookup_b", does: "looks up b", model: "m-b", tools: [lookup("lookup_b")] },
  { name: "refunds", does: "refunds", model: "m-refunds", tools: [refund] },
];

async function flat() {
  const t0 = performance.now();
  const halted = await flatClient.run("refund order 42", { toolkit: flatToolkit });
  const t1 = performance.now();
  const done = await flatClient.runWithAnswer({
    ...halted,
    toolkit: flatToolkit,
    answer: k.answerOutput(halted.pending.id),
  });
  const t2 = performance.now();
  check(done.text, "done: lookup_a: ok, lookup_b: ok, refunded");
  return { phase1: t1 - t0, resume: t2 - t1 };
}

let snapshotBytes = 0;
async function tree() {
  const t0 = performance.now();
  const rt = k.createAgentRuntime({ client: { generate: treeGenerate }, model: "m", agents });
  const halted = await rt.run("coordinator", "refund order 42");
  const t1 = performance.now();
  const done = await rt.runWithAnswer({ answer: k.answerOutput(halted.pending.id) });
  const t2 = performance.now();
  check(done.text, "done: lookup_a: ok, lookup_b: ok, refunded");
  snapshotBytes ||= JSON.stringify(rt.snapshot()).length;
  return { phase1: t1 - t0, resume: t2 - t1 };
}

function check(text, expected) {
  if (text !== expected) {
    throw new Error(`unexpected final text ${JSON.stringify(text)}`);
  }
}

for (let i = 0; i < WARMUP; i += 1) {
  await flat();
  await tree();
}
const samples = { flat: [], tree: [] };
for (let i = 0; i < RUNS; i += 1) {
  const order = i % 2 ? ["flat", "tree"] : ["tree", "flat"];
  for (const name of order) {
    samples[name].push(await (name === "flat" ? flat() : tree()));
  }
}

const med = (name, key) =>
  summarize(samples[name].map((s) => (key ? s[key] : s.phase1 + s.resume))).median;
const rows = ["phase1", "resume", undefined].map((key) => {
  const f = med("flat", key);
  const t = med("tree", key);
  return [key ?? "total", ms(f), ms(t), ratio(t, f), `${(((t - f) * 1000) / 4).toFixed(1)} µs`];
});
console.log(machine());
console.log(
  table(
    `Agents that delegate: coordinator + 3 children (one suspending) vs the flat run, in process (median of ${RUNS}, ms)`,
    ["phase", "flat (baseline)", "tree", "tree / flat", "overhead per handle"],
    rows,
  ),
);
console.log(
  `JSON snapshot of the halted tree (what a host persists besides transcripts): ${snapshotBytes} bytes`,
);
console.log(
  "Peers (OpenAI Agents SDK agents-as-tools, LangGraph sub-graphs) and the edge: agents-edge.mjs.",
);
