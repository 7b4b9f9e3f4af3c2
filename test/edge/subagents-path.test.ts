/**
 * Issue 40, item 1: a sub-agent's request carries `data.path` as an array of segments, stamped
 * by each relaying level (SPEC §7D addendum); at the run it names the suspended subtree under
 * the run's agent, and the answer goes to the deepest handle suspended on it. Runs stored
 * before, whose requests carry the path as one string, still read and still resume; the AG-UI
 * interrupt's `subagentRunId` and the A2A data part's `subagent` come from it.
 */
import { describe, expect, it } from "vitest";
import { askedByOf, childPathOf } from "../../src/edge/agents/asked-by";
import { AgUiTranslator } from "../../src/edge/protocols/ag-ui/events";
import { requestPart } from "../../src/edge/protocols/a2a/task";
import { eventsIn, inTreeObject, taskOutputs, treeRig, viewOf } from "../helpers/subagent-rig";

describe("data.path as segments, and the old string (issue 40 item 1)", () => {
  it("reads both spellings the same, for the inbox, the page, the timeline and AG-UI", () => {
    for (const path of [["root", "coordinator.1", "refunds.1"], "root/coordinator.1/refunds.1"]) {
      expect(childPathOf(path)).toBe("root/coordinator.1/refunds.1");
      expect(askedByOf(path)).toBe("refunds, for coordinator");
    }
    expect(childPathOf(["root", "coordinator.1"])).toBeUndefined(); // the run's own agent
    expect(childPathOf(["root", 7])).toBeUndefined();
  });

  it("a child's request carries its path as segments; the pending event names its handle", async () => {
    const { edge } = treeRig({ tasks: 1 });
    const { view, pendingEvents } = await inTreeObject(edge, "refund", async (o, runId, state) => ({
      view: await viewOf(o, runId),
      pendingEvents: eventsIn(state, runId, "pending"),
    }));
    expect(view.pending?.data?.path).toEqual(["root", "coordinator.1", "worker.1"]);
    expect(pendingEvents.at(-1)?.handle).toBe("root/coordinator.1/worker.1");
  });

  it("a run stored with the old string path still resumes through its child", async () => {
    const { edge, log } = treeRig({ tasks: 1 });
    const done = await inTreeObject(edge, "refund", async (object, runId, state) => {
      const halted = await viewOf(object, runId);
      // What a run suspended before issue 40 stored: the deepest handle as one string.
      for (const table of ["runs", "agent_handles"]) {
        state.storage.sql.exec(
          `UPDATE ${table} SET pending = json_set(pending, '$.data.path', ?) WHERE pending IS NOT NULL`,
          "root/coordinator.1/worker.1",
        );
      }
      const stored = await viewOf(object, runId);
      expect(stored.pending?.data?.path).toBe("root/coordinator.1/worker.1");
      const decided = await object.decide({
        runId,
        requestId: halted.pending!.id,
        decision: "approve",
        channel: "webhook",
      });
      expect(decided.ok).toBe(true);
      await object.drive(runId);
      return viewOf(object, runId);
    });
    expect(done.status).toBe("done");
    expect(taskOutputs(done)).toEqual(["refund: done"]);
    expect(log.refunds).toBe(1);
  });
});

describe("the protocol views read data.path in either spelling (issue 40 item 1)", () => {
  const request = (path: unknown) => ({
    id: "r1",
    kind: "approval",
    prompt: "refund?",
    data: { path, tool: "refund" },
  });

  it("AG-UI: an interrupt's subagentRunId", () => {
    const translator = new AgUiTranslator({ threadId: "th", runId: "run" });
    for (const path of [["root", "coordinator.1", "refunds.1"], "root/coordinator.1/refunds.1"]) {
      expect(translator.interruptOf(request(path), null).subagentRunId).toBe(
        "root/coordinator.1/refunds.1",
      );
    }
    expect(translator.interruptOf(request(undefined), null)).not.toHaveProperty("subagentRunId");
  });

  it("A2A: the waiting task's data part names the sub-agent", () => {
    for (const path of [["root", "coordinator.1", "refunds.1"], "root/coordinator.1/refunds.1"]) {
      const part = requestPart(request(path), null) as { data: Record<string, unknown> };
      expect(part.data.subagent).toBe("root/coordinator.1/refunds.1");
    }
  });
});
