/**
 * Issue 24 at the edge: two children suspending in one turn (parallel `task` calls, both ask)
 * beside a third that finishes. Both requests are open with their own `data.path`; each
 * decision goes to its own handle, in either order; the coordinator's model is called again
 * only once both are answered, and the finished sibling never runs again.
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

const TASKS = ["work", "refund A", "refund B"];

async function decide(object: TreeObject, runId: string, requestId: string) {
  const decided = await object.decide({
    runId,
    requestId,
    decision: "approve",
    channel: "webhook",
  });
  expect(decided.ok).toBe(true);
  await object.drive(runId);
  return viewOf(object, runId);
}

describe("two children suspended in one turn", () => {
  for (const order of [
    ["refund A", "refund B"],
    ["refund B", "refund A"],
  ] as const) {
    it(`both requests are open with their own path; decided ${order.join(" then ")}, the parent resumes once`, async () => {
      const { edge, log } = treeRig({ tasks: TASKS, pings: 1 });
      const { halted, open, afterFirst, done, results } = await inTreeObject(
        edge,
        "both",
        async (object, runId, state) => {
          const halted = await viewOf(object, runId);
          const open = await object.openRequests(runId);
          const byPrompt = (prompt: string) => {
            const request = open.find((r) => r.prompt === `${prompt}?`);
            if (!request) {
              throw new Error(`no open request for ${prompt}`);
            }
            return request;
          };
          const afterFirst = await decide(object, runId, byPrompt(order[0]).id);
          const counts = { ...log };
          const done = await decide(object, runId, byPrompt(order[1]).id);
          const results = eventsIn(state, runId, "tool_result");
          return { halted, open, afterFirst: { view: afterFirst, counts }, done, results };
        },
      );

      // Halted: the first suspended call in call order is surfaced, its sibling's is open too.
      expect(halted.status).toBe("pending");
      expect(halted.pending?.data?.path).toEqual(["root", "coordinator.1", "worker.2"]);
      expect(open.map((r) => [r.prompt, r.data?.path])).toEqual([
        ["refund A?", ["root", "coordinator.1", "worker.2"]],
        ["refund B?", ["root", "coordinator.1", "worker.3"]],
      ]);
      expect(halted.tree.map((h) => [h.handle, h.state])).toEqual([
        ["root/coordinator.1", "suspended"],
        ["root/coordinator.1/worker.1", "closed"],
        ["root/coordinator.1/worker.2", "suspended"],
        ["root/coordinator.1/worker.3", "suspended"],
      ]);

      // One answer is not enough: the coordinator's model is not called again.
      expect(afterFirst.view.status).toBe("pending");
      expect(afterFirst.counts.coordinatorCalls).toBe(1);
      const answered = order[0] === "refund A" ? "worker.2" : "worker.3";
      const waiting = order[0] === "refund A" ? "worker.3" : "worker.2";
      const states = new Map(afterFirst.view.tree.map((h) => [h.handle, h.state]));
      // A decision for the surfaced request resumes its handle at once; one for the sibling's
      // request is recorded and applied when that request is surfaced, after the first.
      if (order[0] === "refund A") {
        expect(states.get(`root/coordinator.1/${answered}`)).toBe("closed");
        expect(afterFirst.counts.refunds).toBe(1);
      } else {
        expect(afterFirst.counts.refunds).toBe(0);
      }
      expect(states.get(`root/coordinator.1/${waiting}`)).toBe("suspended");

      expect(done.status).toBe("done");
      expect(log.coordinatorCalls).toBe(2);
      expect(log.refunds).toBe(2);
      expect(log.pings).toBe(1); // the finished sibling never ran again
      expect(taskOutputs(done)).toEqual(["worked 1", "refund A: done", "refund B: done"]);
      expect(done.text).toBe("worked 1 | refund A: done | refund B: done");
      expect(done.tree.map((h) => h.state)).toEqual(["closed", "closed", "closed", "closed"]);

      // Each refund ran in its own handle, once.
      const refunds = results.filter((e) => e.name === "refund");
      expect(refunds.map((e) => e.handle).sort()).toEqual([
        "root/coordinator.1/worker.2",
        "root/coordinator.1/worker.3",
      ]);
      const pings = results.filter((e) => e.name === "ping");
      expect(pings.map((e) => e.handle)).toEqual(["root/coordinator.1/worker.1"]);
    });
  }
});
