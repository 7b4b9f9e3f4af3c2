/**
 * SPEC §7D fan-out: two `task` calls in one turn run concurrently on fresh transcripts, the
 * parent gains exactly one tool message per call, child usage rolls up, ids are deterministic,
 * the task tool is scoped to the caller's team, and an agent is a tool for a classic toolkit.
 */
import { describe, expect, it } from "vitest";
import {
  agent,
  createAgentRuntime,
  createInProcessClient,
  createToolkit,
  defineTool,
  type AgentDef,
} from "../../../src/core";
import { call, lastUser, scripted, toolMessages } from "./scripted";

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: { type: "object", properties: { q: { type: "string" } } },
  run: ({ q }) => `data(${q})`,
});

const explore: AgentDef = {
  name: "explore",
  does: "read-only research",
  model: "m-explore",
  tools: [lookup],
};
const coordinator: AgentDef = {
  name: "coordinator",
  does: "splits and delegates",
  model: "m-coordinator",
  team: ["explore"],
};

function fanoutModel() {
  const seen: { coordinatorTools?: string[]; explore: string[][] } = { explore: [] };
  const model = scripted({
    "m-coordinator": (request) => {
      seen.coordinatorTools ??= request.tools.map((t) => t.name);
      const results = toolMessages(request);
      if (results.length === 0) {
        return {
          toolCalls: [
            { name: "task", arguments: { agent: "explore", prompt: "find A" } },
            { name: "task", arguments: { agent: "explore", prompt: "find B" } },
          ],
        };
      }
      return { content: `synthesis: ${results.map((m) => m.content).join(" + ")}` };
    },
    "m-explore": async (request) => {
      seen.explore.push(request.messages.map((m) => m.role));
      if (toolMessages(request).length === 0) {
        // Both children must be in a model call at once: proof that they run concurrently.
        await model.overlap(2);
        return call("lookup", { q: "x" });
      }
      return { content: `found:${toolMessages(request)[0]?.content} for ${lastUser(request)}` };
    },
  });
  return { model, seen };
}

describe("fan-out (SPEC §7D S1/S2)", () => {
  it("runs parallel tasks concurrently, isolated, with usage rolled up and children closed", async () => {
    const { model, seen } = fanoutModel();
    const rt = createAgentRuntime({
      client: { generate: model.generate },
      model: "m",
      agents: [coordinator, explore],
    });
    const result = await rt.run("coordinator", "answer using two lookups");

    expect(result.status).toBe("done");
    expect(result.handle).toBe("root/coordinator.1");
    expect(result.text).toBe("synthesis: found:data(x) for find A + found:data(x) for find B");
    expect(result.turns).toBe(2);
    // 2 parent turns + 2 children × 2 turns, 40 tokens each.
    expect(result.usage.totalTokens).toBe(240);
    expect(model.peak).toBeGreaterThanOrEqual(2);

    // Fresh transcripts: each child's first call sees only its own user prompt.
    expect(seen.explore[0]).toEqual(["user"]);
    const parentTranscript = (await rt.store.get("root/coordinator.1")) ?? [];
    expect(parentTranscript.filter((m) => m.role === "tool")).toHaveLength(2);
    expect(seen.coordinatorTools).toEqual(["task"]);

    expect(rt.list().map((h) => [h.id, h.state])).toEqual([
      ["root/coordinator.1", "idle"],
      ["root/coordinator.1/explore.1", "closed"],
      ["root/coordinator.1/explore.2", "closed"],
    ]);
    expect(rt.inspect("root/coordinator.1").transitions).toEqual(["idle→running", "running→idle"]);
    for (const id of ["root/coordinator.1/explore.1", "root/coordinator.1/explore.2"]) {
      expect(rt.inspect(id).transitions).toEqual(["idle→running", "running→idle", "idle→closed"]);
      expect(rt.inspect(id).usage.totalTokens).toBe(80);
    }
  });

  it("advertises only the caller's team, sorted, and refuses an agent outside it with the team listed", async () => {
    let description = "";
    const model = scripted({
      "m-coordinator": (request) => {
        description = request.tools.find((t) => t.name === "task")?.description ?? "";
        const results = toolMessages(request);
        return results.length === 0
          ? call("task", { agent: "outsider", prompt: "do it" })
          : { content: `saw: ${results[0]?.content}` };
      },
    });
    const zeta: AgentDef = { name: "zeta", does: "last letter", model: "m-explore" };
    const outsider: AgentDef = { name: "outsider", does: "not on the team" };
    const rt = createAgentRuntime({
      client: { generate: model.generate },
      model: "m",
      agents: [{ ...coordinator, team: ["zeta", "explore"] }, explore, zeta, outsider],
    });
    const result = await rt.run("coordinator", "go");
    expect(description).toMatch(/- explore: read-only research\n- zeta: last letter$/);
    expect(description).not.toContain("outsider");
    expect(result.text).toBe(
      // Issue 40: the reference runtime's words, the team listed after them.
      'saw: task: "outsider" is not in this agent\'s team; team: explore, zeta',
    );
    expect(rt.list().map((h) => h.id)).toEqual(["root/coordinator.1"]);
  });

  it("gives children no task tool unless their own definition declares a team", async () => {
    const toolsSeen: string[][] = [];
    const model = scripted({
      "m-coordinator": (request) =>
        toolMessages(request).length === 0
          ? call("task", { agent: "explore", prompt: "p" })
          : { content: "ok" },
      "m-explore": (request) => {
        toolsSeen.push(request.tools.map((t) => t.name));
        return { content: "leaf" };
      },
    });
    const rt = createAgentRuntime({
      client: { generate: model.generate },
      model: "m",
      agents: [coordinator, explore],
    });
    expect((await rt.run("coordinator", "go")).status).toBe("done");
    expect(toolsSeen).toEqual([["lookup"]]);
  });

  it("numbers ids per parent and per agent name, deterministically", () => {
    const model = scripted({});
    const rt = createAgentRuntime({
      client: { generate: model.generate },
      model: "m",
      agents: [coordinator, explore],
    });
    const c = rt.spawn(rt.root, "coordinator");
    expect(rt.spawn(c, "explore").id).toBe("root/coordinator.1/explore.1");
    expect(rt.spawn(c, "explore").id).toBe("root/coordinator.1/explore.2");
    expect(rt.spawn(rt.root, "explore").id).toBe("root/explore.1");
    expect(rt.spawn(rt.root, "coordinator").id).toBe("root/coordinator.2");
  });

  it("puts an agent into a classic toolkit with asTool(): only the final text and its metadata", async () => {
    const model = scripted({
      "m-explore": (request) =>
        toolMessages(request).length === 0
          ? call("lookup", { q: "y" })
          : { content: `found ${toolMessages(request)[0]?.content}` },
      outer: (request) =>
        toolMessages(request).length === 0
          ? call("explore", { prompt: "look for y" })
          : { content: `outer got: ${toolMessages(request)[0]?.content}` },
    });
    const researcher = agent("explore", {
      does: "read-only research",
      model: "m-explore",
      tools: [lookup],
    });
    const tool = researcher.asTool({ client: { generate: model.generate }, model: "m" });
    expect(tool).toMatchObject({
      name: "explore",
      description: "read-only research",
      source: "agent",
    });
    const toolkit = await createToolkit({ tools: [tool] });
    const client = createInProcessClient({ model: "outer", generate: model.generate });
    const run = await client.run("use the explorer", { toolkit });
    expect(run.status).toBe("done");
    expect(run.text).toBe("outer got: found data(y)");
    const direct = await tool.execute({ prompt: "look for y" }, {});
    expect(direct).toEqual({
      output: "found data(y)",
      isError: false,
      metadata: { agent: "explore", turns: 2, totalTokens: 80 },
    });
  });
});
