/**
 * Issue 40, items 2–4: where the runtime still differed from the reference one of SPEC §7D.
 * `wake` on a suspended handle is a no-op that succeeds; `wait(handle, { by })` holds "wait
 * only what you spawned"; `RunResult.toolCalls[].metadata`; `Agent.registry()`; and the
 * refusal texts (`not in this agent's team`; `Unknown tool: task` without a team).
 */
import { describe, expect, it } from "vitest";
import {
  answerOutput,
  createInProcessClient,
  createToolkit,
  defineTool,
  requireApproval,
  type Tool,
} from "../../../src/core";
import { agent, createAgentRuntime } from "../../../src/core/agents";
import { call, scripted, toolMessages } from "./scripted";

function suspendingRig() {
  const secret = requireApproval(
    defineTool({ name: "secret", description: "Reads the secret", run: () => "token" }),
    { prompt: "read the secret?" },
  );
  const model = scripted({
    "m-asker": (request) => {
      const results = toolMessages(request);
      return results.length === 0 ? call("secret", {}) : { content: `got ${results[0]?.content}` };
    },
  });
  const rt = createAgentRuntime({
    client: { generate: model.generate },
    model: "m",
    agents: [{ name: "asker", does: "asks", model: "m-asker", tools: [secret] }],
  });
  return rt;
}

describe("the reference runtime's behaviour (issue 40)", () => {
  it("wake on a suspended handle succeeds and changes nothing: the post stays in the inbox", async () => {
    const rt = suspendingRig();
    const halted = await rt.run("asker", "go");
    expect(halted.status).toBe("pending");
    const handle = halted.handle;
    expect(rt.post(handle, "by the way")).toEqual({ ok: true, size: 1 });
    const trace = rt.inspect(handle).transitions;
    expect(rt.wake(handle, "again")).toEqual({ ok: true, queued: false });
    expect(rt.inspect(handle)).toMatchObject({ state: "suspended", inbox: 1, transitions: trace });
    const done = await rt.runWithAnswer({ answer: answerOutput(halted.pending?.id ?? "") });
    expect(done).toMatchObject({ status: "done", text: "got token" });
    expect(rt.inspect(handle).inbox).toBe(1); // still there for the next wake
  });

  it("wait(handle, { by }) answers only the handle's spawner", async () => {
    const rt = suspendingRig();
    const first = await rt.run("asker", "go");
    const other = rt.spawn(rt.root, "asker");
    const refused = await rt.wait(first.handle, { by: other });
    expect(refused).toMatchObject({
      status: "error",
      error: `wait: ${first.handle} was not spawned by ${other.id} (wait only what you spawned)`,
    });
    expect(await rt.wait(first.handle, { by: rt.root })).toMatchObject({ status: "pending" });
  });

  it("RunResult.toolCalls[].metadata: what each tool's result carried", async () => {
    const tagged: Tool = {
      name: "tagged",
      description: "Tags",
      inputSchema: { type: "object", properties: {} },
      source: "native",
      execute: async () => ({ output: "ok", isError: false, metadata: { tag: 7 } }),
    };
    const worker = agent("worker", { does: "works", model: "m-worker" });
    const model = scripted({ "m-worker": () => ({ content: "worked" }) });
    let turn = 0;
    const client = createInProcessClient({
      model: "host",
      generate: () =>
        turn++ === 0
          ? {
              toolCalls: [
                { name: "tagged", arguments: {} },
                { name: "worker", arguments: { prompt: "p" } },
              ],
            }
          : { content: "done" },
    });
    const toolkit = await createToolkit({
      tools: [tagged, worker.asTool({ client: { generate: model.generate }, model: "m" })],
    });
    const result = await client.run("go", { toolkit });
    expect(result.toolCalls.map((c) => [c.name, c.metadata])).toEqual([
      ["tagged", { tag: 7 }],
      ["worker", { agent: "worker", turns: 1, totalTokens: 40 }],
    ]);
  });

  it("Agent.registry(): the agent and the transitive closure of its team, sorted by name", () => {
    const leaf = agent("alpha", { does: "leaf" });
    const middle = agent("zulu", { does: "middle", team: [leaf] });
    const top = agent("mike", { does: "top", team: [middle] });
    expect(top.registry().map((def) => def.name)).toEqual(["alpha", "mike", "zulu"]);
    expect(leaf.registry().map((def) => def.name)).toEqual(["alpha"]);
  });

  it("an agent with no team that calls task hears the loop's standard text", async () => {
    const model = scripted({
      "m-solo": (request) => {
        const results = toolMessages(request);
        return results.length === 0
          ? call("task", { agent: "anyone", prompt: "p" })
          : { content: String(results[0]?.content) };
      },
    });
    const rt = createAgentRuntime({
      client: { generate: model.generate },
      model: "m",
      agents: [{ name: "solo", does: "alone", model: "m-solo" }],
    });
    const result = await rt.run("solo", "go");
    expect(result.text.split("\n")[0]).toBe("Unknown tool: task");
  });
});
