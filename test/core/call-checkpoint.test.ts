// The per-call checkpoint (onCallCheckpoint): each call's result is handed to the host as it
// settles, before the turn's other calls have; continueRun then runs only calls without one.
// Runs under workerd and plain Node.
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createInProcessClient } from "../../src/core/client";
import { createToolkit } from "../../src/core/toolkit";
import { defineTool } from "../../src/core/tools/define";
import type { Message } from "../../src/core/types";

function threeSteps() {
  const executions: Array<{ n: number; callId: string | undefined }> = [];
  let releaseSecond: () => void = () => {};
  const secondMayFinish = new Promise<void>((resolve) => {
    releaseSecond = resolve;
  });
  const step = defineTool({
    name: "step",
    description: "One step",
    inputSchema: z.object({ n: z.number() }),
    run: async ({ n }, ctx) => {
      executions.push({ n, callId: ctx.callId });
      if (n === 2) {
        await secondMayFinish; // finishes only once call 1's result was checkpointed
      }
      return `step ${n} done`;
    },
  });
  return { step, executions, releaseSecond };
}

const generate = (request: { messages: Message[] }) =>
  request.messages.at(-1)?.role === "user"
    ? { toolCalls: [1, 2, 3].map((n) => ({ id: `call_${n}`, name: "step", arguments: { n } })) }
    : { content: "all steps done" };

describe("onCallCheckpoint", () => {
  it("fires once per call as it settles, before the turn ends, with the turn's assistant last", async () => {
    const { step, releaseSecond } = threeSteps();
    const seen: string[] = [];
    const turns: number[] = [];
    const client = createInProcessClient({
      model: "m",
      generate,
      onCheckpoint: (state) => {
        turns.push(state.messages.filter((m) => m.role === "tool").length);
      },
      onCallCheckpoint: (state, result) => {
        expect(state.messages.at(-1)?.role).toBe("assistant");
        seen.push(result.toolCallId);
        if (result.toolCallId === "call_1") {
          releaseSecond();
        }
      },
    });
    const result = await client.run("go", { toolkit: await createToolkit({ tools: [step] }) });
    expect(result.text).toBe("all steps done");
    expect(seen.sort()).toEqual(["call_1", "call_2", "call_3"]);
    expect(seen.length).toBe(3);
    // Turn checkpoints: after the reply (no results yet), after the results, after the last reply.
    expect(turns).toEqual([0, 3, 3]);
  });

  it("continueRun runs only the calls without a stored result, with their original call ids", async () => {
    const { step, executions } = threeSteps();
    const history: Message[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        toolCalls: [1, 2, 3].map((n) => ({
          id: `call_${n}`,
          name: "step",
          arguments: JSON.stringify({ n }),
        })),
      },
      // Call 2 completed before the crash; 1 and 3 were interrupted.
      { role: "tool", toolCallId: "call_2", name: "step", content: "step 2 done" },
    ];
    const checkpointed: string[] = [];
    const client = createInProcessClient({
      model: "m",
      generate,
      onCallCheckpoint: (_state, result) => {
        checkpointed.push(result.toolCallId);
      },
    });
    const result = await client.continueRun({
      toolkit: await createToolkit({ tools: [step] }),
      history,
    });
    expect(result.status).toBe("done");
    expect(executions.map((e) => [e.n, e.callId]).sort()).toEqual([
      [1, "call_1"],
      [3, "call_3"],
    ]);
    expect(checkpointed.sort()).toEqual(["call_1", "call_3"]);
    expect(
      result.messages
        .filter((m) => m.role === "tool")
        .map((m) => (m as { content: string }).content),
    ).toEqual(["step 1 done", "step 2 done", "step 3 done"]);
  });
});
