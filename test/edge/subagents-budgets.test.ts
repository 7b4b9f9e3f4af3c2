/**
 * Issue 24, hierarchical budgets at the edge (SPEC §7D): `maxTokens`, `maxToolCalls`,
 * `maxWallMs` and `maxConcurrent` along the ancestor chain of a tree in the thread's Durable
 * Object, walked live before every model call and every child step. A limit stop is
 * `incomplete` with the limit named (the child's `task` result says whose budget it was).
 * Nothing is carved at spawn: the walk reads every ancestor's budget (docs/agents.md).
 * Scripted models; "an hour later" is the stored clock moved back, not a wait.
 */
import { describe, expect, it } from "vitest";
import type { Budget } from "../../src/core/agents/types";
import {
  inTreeObject as inObject,
  taskOutputs,
  treeRig as rig,
  viewOf,
  type TreeObject,
} from "../helpers/subagent-rig";

describe("hierarchical budgets of a tree in the Durable Object", () => {
  it("maxTokens: what one child spent stops it, its queued sibling and their parent", async () => {
    // The coordinator's 10 tokens + worker.1's 3 × 30 spend its 100 (worker.1 has no budget of
    // its own): worker.1 stops before its fourth call, worker.2 (queued behind it, spawned
    // before worker.1 spent anything) before its first, the coordinator before its second.
    const { edge, log } = rig({ coordinator: { maxTokens: 100, maxConcurrent: 1 }, tasks: 2 });
    const view = await inObject(edge, "work", (object, runId) => viewOf(object, runId));
    expect(view).toMatchObject({ status: "incomplete", limit: "maxTokens" });
    expect(log.coordinatorCalls).toBe(1);
    expect(taskOutputs(view)).toEqual([
      "incomplete (budget exhausted: maxTokens of root/coordinator.1 (100 of 100)): ",
      "incomplete (budget exhausted: maxTokens of root/coordinator.1 (100 of 100)): ",
    ]);
    expect(view.tree.map((h) => [h.handle, h.state, h.turns])).toEqual([
      ["root/coordinator.1", "closed", 1],
      ["root/coordinator.1/worker.1", "closed", 3],
      ["root/coordinator.1/worker.2", "closed", 0],
    ]);
    expect(log.pings).toBe(3);
  });

  it("maxToolCalls of the child: the child stops, its parent carries on with the limit named", async () => {
    const { edge, log } = rig({ worker: { maxToolCalls: 2 } });
    const view = await inObject(edge, "work", (object, runId) => viewOf(object, runId));
    expect(view.status).toBe("done");
    expect(view.text).toBe(
      "incomplete (budget exhausted: maxToolCalls of root/coordinator.1/worker.1 (2 of 2)): ",
    );
    expect(log.pings).toBe(2);
  });

  it("maxToolCalls of the parent counts its children's calls (the roll-up)", async () => {
    const { edge } = rig({ coordinator: { maxToolCalls: 3 }, pings: 1, tasks: 2 });
    const view = await inObject(edge, "work", (object, runId) => viewOf(object, runId));
    // worker.1: 1 ping; worker.2: 1 ping; the coordinator's own 2 task calls: 4 ≥ 3.
    expect(view).toMatchObject({ status: "incomplete", limit: "maxToolCalls" });
    expect(taskOutputs(view)).toEqual(["worked 1", "worked 1"]);
  });

  it("maxWallMs: a child's approval decided an hour later finds the tree's time spent", async () => {
    const { edge, log } = rig({ coordinator: { maxWallMs: 60_000 } });
    const { pendingView, done } = await inObject(edge, "refund", async (object, runId, state) => {
      const pendingView = await viewOf(object, runId);
      // An hour passes: every clock reading of the tree is an hour older.
      state.storage.sql.exec("UPDATE runs SET created_at = created_at - 3600000");
      state.storage.sql.exec("UPDATE agent_handles SET created_at = created_at - 3600000");
      const decided = await object.decide({
        runId,
        requestId: pendingView.pending!.id,
        decision: "approve",
        channel: "webhook",
      });
      expect(decided.ok).toBe(true);
      await object.drive(runId);
      return { pendingView, done: await viewOf(object, runId) };
    });
    expect(pendingView.status).toBe("pending");
    expect(pendingView.pending?.data?.path).toEqual(["root", "coordinator.1", "worker.1"]);
    expect(done).toMatchObject({ status: "incomplete", limit: "maxWallMs" });
    expect(taskOutputs(done)).toEqual([
      expect.stringMatching(
        /^incomplete \(budget exhausted: maxWallMs of root\/coordinator\.1 \(36\d{5} of 60000\)\): $/,
      ),
    ]);
    expect(log.refunds).toBe(0); // stopped before its step: the approved call never ran
    expect(done.tree.map((h) => h.state)).toEqual(["closed", "closed"]);
  });

  it("maxConcurrent: a child queued for its parent's slot is idle in the tree until the slot is its own", async () => {
    // SPEC §7D: a wake over maxConcurrent queues, and admission flips the state (idle → running).
    const seen: string[][][] = [];
    let watched: { object: TreeObject; runId: string } | undefined;
    const { edge } = rig({
      coordinator: { maxConcurrent: 1 },
      pings: 0,
      tasks: 2,
      onWorkerCall: async () => {
        const view = await viewOf(watched!.object, watched!.runId);
        seen.push(view.tree.slice(1).map((h) => [h.handle, h.state]));
      },
    });
    const start = {
      input: "work",
      beforeDrive: (object: TreeObject, runId: string) => {
        watched = { object, runId };
      },
    };
    const view = await inObject(edge, start, (object, runId) => viewOf(object, runId));
    expect(view.status).toBe("done");
    expect(seen).toEqual([
      [
        ["root/coordinator.1/worker.1", "running"],
        ["root/coordinator.1/worker.2", "idle"],
      ],
      [
        ["root/coordinator.1/worker.1", "closed"],
        ["root/coordinator.1/worker.2", "running"],
      ],
    ]);
  });

  it("maxConcurrent: at most that many children of a parent run at once, queued in call order", async () => {
    const peakWith = async (coordinator: Budget | undefined) => {
      let active = 0;
      let peak = 0;
      const { edge } = rig({
        ...(coordinator ? { coordinator } : {}),
        pings: 0,
        tasks: 3,
        // Each child's only model call waits for a sibling to join it (a bounded wait).
        onWorkerCall: async () => {
          active += 1;
          peak = Math.max(peak, active);
          for (let i = 0; i < 50 && active < 2; i += 1) {
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
          active -= 1;
        },
      });
      const view = await inObject(edge, "work", (object, runId) => viewOf(object, runId));
      expect(view.status).toBe("done");
      expect(taskOutputs(view)).toEqual(["worked 0", "worked 0", "worked 0"]);
      return peak;
    };
    expect(await peakWith(undefined)).toBeGreaterThan(1); // the children do overlap without it
    expect(await peakWith({ maxConcurrent: 1 })).toBe(1);
  });
});
