/**
 * SPEC §7D budgets (carve at spawn, live ancestor-chain walk before each turn and spawn, loud
 * `incomplete` with the limit named) and the registry's configuration errors (a team naming
 * an undefined agent, a cycle in the team graph that no maxDepth bounds).
 */
import { describe, expect, it } from "vitest";
import {
  AgentConfigError,
  createAgentRuntime,
  defineTool,
  virtualClock,
  type AgentDef,
  type AgentRuntimeOptions,
} from "../../../src/core";
import { call, scripted, toolMessages } from "./scripted";

const lookup = defineTool({ name: "lookup", description: "Look up", run: () => "data(x)" });

function rig(extra: Partial<AgentRuntimeOptions> = {}) {
  const model = scripted({
    "m-explore": (request) =>
      toolMessages(request).length === 0
        ? call("lookup", { q: "x" })
        : { content: `found:${toolMessages(request)[0]?.content}` },
    "m-loop": () => call("lookup", { q: "again" }),
    "m-coordinator": (request) =>
      toolMessages(request).length === 0
        ? call("task", { agent: "explore", prompt: "p" })
        : { content: `saw: ${toolMessages(request)[0]?.content}` },
  });
  const agents: AgentDef[] = [
    {
      name: "coordinator",
      does: "splits and delegates",
      model: "m-coordinator",
      team: ["explore"],
    },
    { name: "explore", does: "read-only research", model: "m-explore", tools: [lookup] },
    { name: "looper", does: "never finishes", model: "m-loop", tools: [lookup] },
  ];
  return createAgentRuntime({ client: { generate: model.generate }, model: "m", agents, ...extra });
}

describe("hierarchical budgets (SPEC §7D S7)", () => {
  it("carves min(own, parent remaining), caps children, and walks the chain live before each turn", async () => {
    const rt = rig();
    const coordinator = rt.spawn(rt.root, "coordinator", { maxTokens: 100, maxChildren: 2 });
    const first = rt.spawn(coordinator, "explore", { maxTokens: 500 });
    expect(first.budget.maxTokens).toBe(100);
    const second = rt.spawn(coordinator, "explore");
    expect(() => rt.spawn(coordinator, "explore")).toThrow(
      expect.objectContaining({
        code: "maxChildren",
        message: expect.stringContaining("maxChildren of root/coordinator.1"),
      }),
    );

    rt.wake(first, "go");
    expect(await rt.wait(first)).toMatchObject({ status: "done", text: "found:data(x)" });
    expect(rt.inspect(coordinator).usage.totalTokens).toBe(80);

    rt.wake(second, "go");
    expect((await rt.wait(second)).status).toBe("done");
    rt.wake(second, "again");
    const refused = await rt.wait(second);
    expect(refused).toMatchObject({
      status: "incomplete",
      limit: "maxTokens",
      limitOf: "root/coordinator.1",
      error: "budget exhausted: maxTokens of root/coordinator.1 (160 of 100)",
    });
    expect(rt.inspect(second).turns).toBe(2);
  });

  it("stops a run at maxTurns with status incomplete, keeping its partial transcript", async () => {
    const rt = rig();
    const result = await rt.run("looper", "loop forever", { budget: { maxTurns: 3 } });
    expect(result).toMatchObject({ status: "incomplete", limit: "maxTurns", turns: 3 });
    const stored = (await rt.store.get(result.handle)) ?? [];
    expect(stored.filter((m) => m.role === "tool")).toHaveLength(3);
    expect(rt.inspect(result.handle).state).toBe("idle");
  });

  it("carves maxDepth one level down and refuses a spawn past it; the task tool hands the refusal to the model", async () => {
    const rt = rig({ budget: { maxDepth: 1 } });
    const result = await rt.run("coordinator", "delegate");
    expect(result.text).toBe(
      "saw: task: spawn refused: budget exhausted: maxDepth of root/coordinator.1 (1 of 0)",
    );
    expect(rt.list().map((h) => h.id)).toEqual(["root/coordinator.1"]);
  });

  it("counts tool calls and wall time from the first wake, on the runtime's clock", async () => {
    const clock = virtualClock(1_000);
    const rt = rig({ clock });
    const counted = rt.spawn(rt.root, "explore", { maxToolCalls: 1 });
    rt.wake(counted, "go");
    expect((await rt.wait(counted)).status).toBe("done");
    rt.wake(counted, "go again");
    expect(await rt.wait(counted)).toMatchObject({ status: "incomplete", limit: "maxToolCalls" });

    const timed = rt.spawn(rt.root, "explore", { maxWallMs: 60_000 });
    rt.wake(timed, "go");
    expect((await rt.wait(timed)).status).toBe("done");
    clock.advance(60_000);
    rt.wake(timed, "later");
    expect(await rt.wait(timed)).toMatchObject({ status: "incomplete", limit: "maxWallMs" });
  });
});

describe("registry checks (issue 24, item 5)", () => {
  const base = { client: { generate: () => ({ content: "" }) }, model: "m" };

  it("a team naming undefined agents fails with the names", () => {
    const build = () =>
      createAgentRuntime({
        ...base,
        agents: [
          { name: "coordinator", does: "d", team: ["refunds", "lookup"] },
          { name: "helper", does: "d", team: ["ghost"] },
        ],
      });
    expect(build).toThrow(AgentConfigError);
    expect(build).toThrow(
      'the team of "coordinator" names undefined agents: refunds, lookup; the team of "helper" names undefined agents: ghost (defined: coordinator, helper)',
    );
    try {
      build();
    } catch (error) {
      expect((error as AgentConfigError).names).toEqual(["refunds", "lookup", "ghost"]);
    }
  });

  it("a cycle in the team graph is refused unless a maxDepth bounds it", () => {
    const a: AgentDef = { name: "a", does: "d", team: ["b"] };
    const b: AgentDef = { name: "b", does: "d", team: ["a"] };
    expect(() => createAgentRuntime({ ...base, agents: [a, b] })).toThrow(
      "the team graph has a cycle (a → b → a) and no maxDepth bounds it: set budget.maxDepth on one of a, b or on the runtime",
    );
    expect(() =>
      createAgentRuntime({ ...base, agents: [{ name: "self", does: "d", team: ["self"] }] }),
    ).toThrow(/cycle \(self → self\)/);
    expect(() =>
      createAgentRuntime({ ...base, agents: [a, { ...b, budget: { maxDepth: 4 } }] }),
    ).not.toThrow();
    expect(() =>
      createAgentRuntime({ ...base, agents: [a, b], budget: { maxDepth: 4 } }),
    ).not.toThrow();
  });

  it("team members given as definitions join the registry; two agents with one name are refused", () => {
    const leaf: AgentDef = { name: "leaf", does: "d" };
    const rt = createAgentRuntime({ ...base, agents: [{ name: "top", does: "d", team: [leaf] }] });
    expect(rt.spawn(rt.spawn(rt.root, "top"), "leaf").id).toBe("root/top.1/leaf.1");
    expect(() =>
      createAgentRuntime({
        ...base,
        agents: [leaf, { name: "top", does: "d", team: [{ name: "leaf", does: "other" }] }],
      }),
    ).toThrow('two different agents are named "leaf"');
  });
});
