/**
 * Sub-agents' outputs are tool outputs (issue 38, item 2): a child's answer reaches its
 * caller's model bounded by the caller's `maxToolOutputBytes`, also when it settles after a
 * decision and is carried up the tree without passing through the caller's loop
 * (durable/agents/cascade.ts); a child's own tool outputs are bounded by the child's agent.
 * Each call's log keeps the whole output, and the object serves it.
 */
import { describe, expect, it } from "vitest";
import {
  eventsIn,
  inTreeObject,
  taskOutputs,
  treeRig,
  viewOf,
  type TreeObject,
} from "../helpers/subagent-rig";

async function outputOf(object: TreeObject, runId: string, callId: string) {
  const url = new URL("https://thread/tool-call-output");
  url.searchParams.set("runId", runId);
  url.searchParams.set("callId", callId);
  const response = await object.fetch(url.toString());
  return { status: response.status, text: await response.text() };
}

describe("a child's answer in its caller's transcript", () => {
  it("is bounded by the caller's maxToolOutputBytes when a decision settles it (carried up the tree)", async () => {
    const { edge } = treeRig({
      tasks: ["work", "refund A"],
      pings: 1,
      maxToolOutputBytes: { coordinator: 8, worker: 2 },
    });
    const { view, results, refundCall, output, pingOutput } = await inTreeObject(
      edge,
      "both",
      async (object, runId, state) => {
        const [request] = await object.openRequests(runId);
        const decided = await object.decide({
          runId,
          requestId: request!.id,
          decision: "approve",
          channel: "webhook",
        });
        expect(decided.ok).toBe(true);
        await object.drive(runId);
        const view = await viewOf(object, runId);
        const refundCall = view.toolCalls.find((c) => c.output === "refund A: done");
        const pingCall = eventsIn(state, runId, "tool_result").find((e) => e.name === "ping");
        return {
          view,
          results: eventsIn(state, runId, "tool_result").filter((e) => e.name === "task"),
          refundCall,
          output: await outputOf(object, runId, refundCall?.id ?? "none"),
          pingOutput: await outputOf(object, runId, String(pingCall?.id)),
        };
      },
    );
    expect(view.status).toBe("done");
    // "worked 1" fits in 8 bytes; "refund A: done" (settled by the decision) does not.
    expect(taskOutputs(view)).toEqual([
      "worked 1",
      "refund A\n[output truncated: 14 bytes, the first 8 shown]",
    ]);
    expect(refundCall).toMatchObject({ name: "task", truncated: { total: 14, shown: 8 } });
    expect(results.find((e) => e.id === refundCall?.id)).toMatchObject({
      output: "refund A\n[output truncated: 14 bytes, the first 8 shown]",
      truncated: { total: 14, shown: 8 },
    });
    expect(output).toEqual({ status: 200, text: "refund A: done" });
    // The child's own tool ("pong", 4 bytes) under the worker's bound of 2, served whole.
    expect(pingOutput).toEqual({ status: 200, text: "pong" });
  });

  it("a child's own tool output is bounded for the child's model by the child's agent", async () => {
    const { edge } = treeRig({ tasks: ["work"], pings: 1, maxToolOutputBytes: { worker: 2 } });
    const pings = await inTreeObject(edge, "work", async (_object, runId, state) =>
      eventsIn(state, runId, "tool_result").filter((e) => e.name === "ping"),
    );
    expect(pings).toEqual([
      expect.objectContaining({
        output: "po\n[output truncated: 4 bytes, the first 2 shown]",
        truncated: { total: 4, shown: 2 },
        handle: "root/coordinator.1/worker.1",
      }),
    ]);
  });
});
