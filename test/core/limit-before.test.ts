// limitBefore: a limit kept outside the run (the edge's sub-agent budgets, which siblings spend
// too) is asked before every model call; the one it names stops the run `incomplete` with that
// limit, the model not called again, the partial transcript kept. Runs under workerd and Node.
import { describe, expect, it } from "vitest";
import { createInProcessClient } from "../../src/core/client";
import { createToolkit } from "../../src/core/toolkit";
import { defineTool } from "../../src/core/tools/define";
import type { RunState } from "../../src/core/loop/run-loop";

const ping = defineTool({ name: "ping", description: "Ping", run: () => "pong" });

describe("limitBefore", () => {
  it("stops the run before the model call once it names a limit", async () => {
    const asked: number[] = [];
    let calls = 0;
    const client = createInProcessClient({
      model: "m",
      generate: () => {
        calls += 1;
        return { toolCalls: [{ name: "ping", arguments: {} }] };
      },
      limitBefore: (state: RunState) => {
        asked.push(state.turns);
        return state.turns >= 2 ? "maxTokens" : undefined;
      },
    });
    const result = await client.run("go", { toolkit: await createToolkit({ tools: [ping] }) });
    expect(result).toMatchObject({ status: "incomplete", limit: "maxTokens", turns: 2 });
    expect(calls).toBe(2);
    expect(asked).toEqual([0, 1, 2]);
    expect(result.messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  it("is checked again on a resumed run", async () => {
    const client = createInProcessClient({
      model: "m",
      generate: () => ({ content: "never" }),
      limitBefore: () => "maxWallMs",
    });
    const result = await client.continueRun({
      runId: "r",
      toolkit: await createToolkit({ tools: [] }),
      history: [{ role: "user", content: "go" }],
    });
    expect(result).toMatchObject({ status: "incomplete", limit: "maxWallMs", turns: 0 });
  });
});
