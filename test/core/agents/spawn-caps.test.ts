/**
 * Issue 37, item 5 (spawn bombs) in the kernel runtime: children per model turn and per tree
 * are capped by default (a refused `task` is a tool error the model reads), and a model call
 * under a `maxTokens` pool is admitted only once the pool can pay for it, so a tree never
 * spends more than its limit plus one model call. Every scripted call costs 40 tokens.
 */
import { describe, expect, it } from "vitest";
import { createAgentRuntime, type AgentDef, type Budget } from "../../../src/core";
import { scripted, toolMessages } from "./scripted";

function rig(opts: { tasks: number; coordinator?: Budget; runtime?: Budget }) {
  const model = scripted({
    "m-worker": () => ({ content: "done" }),
    "m-coordinator": (request) =>
      toolMessages(request).length === 0
        ? {
            toolCalls: Array.from({ length: opts.tasks }, (_, i) => ({
              name: "task",
              arguments: { agent: "worker", prompt: `part ${i}` },
            })),
          }
        : {
            content: toolMessages(request)
              .map((m) => m.content)
              .join("\n"),
          },
  });
  const agents: AgentDef[] = [
    {
      name: "coordinator",
      does: "delegates",
      model: "m-coordinator",
      team: ["worker"],
      ...(opts.coordinator ? { budget: opts.coordinator } : {}),
    },
    { name: "worker", does: "works", model: "m-worker" },
  ];
  const runtime = createAgentRuntime({
    client: { generate: model.generate },
    model: "m",
    agents,
    ...(opts.runtime ? { budget: opts.runtime } : {}),
  });
  return { runtime, model };
}

const lines = (text: string) => text.split("\n");

describe("spawn caps and budget admission (issue 37 item 5)", () => {
  it("caps children per model turn at 16 by default: the rest are refused in words the model reads", async () => {
    const { runtime, model } = rig({ tasks: 20 });
    const result = await runtime.run("coordinator", "go");
    expect(result.status).toBe("done");
    const outputs = lines(result.text);
    expect(outputs.slice(0, 16)).toEqual(Array(16).fill("done"));
    expect(outputs.slice(16)).toEqual(
      Array(4).fill(
        "task refused: more than 16 children in one turn (maxChildrenPerTurn of root/coordinator.1); wait for these results, then delegate the rest",
      ),
    );
    expect(runtime.list()).toHaveLength(17); // the coordinator and its 16 children
    expect(model.calls.filter((m) => m === "m-worker")).toHaveLength(16);
  });

  it("the per-turn cap is the agent's budget to raise or lower", async () => {
    const { runtime } = rig({ tasks: 5, coordinator: { maxChildrenPerTurn: 2 } });
    const result = await runtime.run("coordinator", "go");
    expect(lines(result.text).map((l) => l.slice(0, 40))).toEqual([
      "done",
      "done",
      "task refused: more than 2 children in on",
      "task refused: more than 2 children in on",
      "task refused: more than 2 children in on",
    ]);
  });

  it("caps a whole tree at 200 handles by default, configurable on the runtime's budget", async () => {
    const big = rig({ tasks: 201, coordinator: { maxChildrenPerTurn: 1000 } });
    const result = await big.runtime.run("coordinator", "go");
    const refused = lines(result.text).filter((l) => l !== "done");
    // The coordinator is the tree's first handle: 199 children fit under the default 200.
    expect(refused).toEqual(
      Array(2).fill("task: refused: more than 200 children in this tree (maxDescendants of root)"),
    );
    expect(big.runtime.list()).toHaveLength(200);

    const small = rig({ tasks: 4, runtime: { maxDescendants: 3 } });
    const few = await small.runtime.run("coordinator", "go");
    expect(lines(few.text).filter((l) => l === "done")).toHaveLength(2);
    expect(lines(few.text)[3]).toBe(
      "task: refused: more than 3 children in this tree (maxDescendants of root)",
    );
  });

  it("admits model calls against maxTokens: 50 parallel children spend at most the limit plus one call", async () => {
    const { runtime } = rig({
      tasks: 50,
      coordinator: { maxTokens: 300, maxChildrenPerTurn: 50 },
    });
    const result = await runtime.run("coordinator", "go");
    const coordinator = runtime.inspect("root/coordinator.1");
    const children = coordinator.usage.totalTokens - coordinator.ownUsage.totalTokens;
    // The coordinator's first call left 260. Without admission every child passes the walk
    // before any has spent: 50 × 40 = 2,000. With it: what was left, plus at most one call.
    expect(children).toBeLessThanOrEqual(260 + 40);
    expect(children).toBeGreaterThanOrEqual(260);
    const outputs = lines(result.text);
    expect(outputs.filter((l) => l === "done")).toHaveLength(children / 40);
    expect(outputs.filter((l) => l.startsWith("incomplete (maxTokens)"))).toHaveLength(
      50 - children / 40,
    );
  });
});
