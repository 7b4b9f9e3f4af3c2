/**
 * Issue 37, item 5 (spawn bombs) in the thread's Durable Object: one model turn asked for
 * 1,000 children and held the object for 13.7 s, and a tree with `maxTokens: 300` spent 8,080.
 * Children per turn and per tree are capped by default (a refused `task` is a tool error the
 * model reads), model calls under a token pool are admitted only once it can pay (the limit
 * plus at most one call), and a fan-out costs the object the same per child at 100 children
 * as at 400: counted in SQL statements and rows handed to JavaScript, never timed.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Budget } from "../../src/core/agents/types";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { BASE } from "../helpers/edge";
import { threadStub } from "../helpers/durable";
import { inTreeObject, taskOutputs, treeRig, viewOf } from "../helpers/subagent-rig";

const PER_TURN =
  "task refused: more than 16 children in one turn (maxChildrenPerTurn of root/coordinator.1); wait for these results, then delegate the rest";

describe("spawn caps at the edge (issue 37 item 5)", () => {
  it("caps one turn at 16 children by default: the rest are tool errors, and nothing else runs", async () => {
    const { edge } = treeRig({ tasks: 20, pings: 0 });
    const view = await inTreeObject(edge, "work", (object, runId) => viewOf(object, runId));
    expect(view.status).toBe("done");
    const outputs = taskOutputs(view);
    expect(outputs.slice(0, 16)).toEqual(Array(16).fill("worked 0"));
    expect(outputs.slice(16)).toEqual(Array(4).fill(PER_TURN));
    expect(view.tree).toHaveLength(17);
  });

  it("the caps are the agent's budget: maxChildrenPerTurn and maxDescendants", async () => {
    const perTurn = treeRig({ tasks: 3, pings: 0, coordinator: { maxChildrenPerTurn: 1 } });
    const one = await inTreeObject(perTurn.edge, "work", (o, runId) => viewOf(o, runId));
    expect(taskOutputs(one).map((o) => o.slice(0, 49))).toEqual([
      "worked 0",
      "task refused: more than 1 children in one turn (m",
      "task refused: more than 1 children in one turn (m",
    ]);
    const perTree = treeRig({ tasks: 3, pings: 0, coordinator: { maxDescendants: 2 } });
    const two = await inTreeObject(perTree.edge, "work", (o, runId) => viewOf(o, runId));
    expect(taskOutputs(two)).toEqual([
      "worked 0",
      "worked 0",
      "task refused: more than 2 children in this tree (maxDescendants of root/coordinator.1)",
    ]);
  });

  it("caps a tree at 200 children by default", async () => {
    const { edge } = treeRig({ tasks: 201, pings: 0, coordinator: { maxChildrenPerTurn: 500 } });
    const view = await inTreeObject(edge, "work", (o, runId) => viewOf(o, runId));
    expect(taskOutputs(view).at(-1)).toBe(
      "task refused: more than 200 children in this tree (maxDescendants of root/coordinator.1)",
    );
    expect(view.tree).toHaveLength(201);
  });

  it("admits model calls against maxTokens: 100 parallel children spend the limit plus at most one call", async () => {
    // The coordinator's call costs 10, each worker's 30. Before: 10 + 100 × 30 = 3,010.
    const budget: Budget = { maxTokens: 300, maxChildrenPerTurn: 100 };
    const { edge } = treeRig({ tasks: 100, pings: 0, coordinator: budget });
    const view = await inTreeObject(edge, "work", (o, runId) => viewOf(o, runId));
    const spent = view.tree.reduce(
      (sum, h) => sum + (h as unknown as { usage: { totalTokens: number } }).usage.totalTokens,
      0,
    );
    expect(spent).toBeGreaterThanOrEqual(300);
    expect(spent).toBeLessThanOrEqual(300 + 30);
    expect(view).toMatchObject({ status: "incomplete", limit: "maxTokens" });
    const outputs = taskOutputs(view);
    expect(outputs.filter((o) => o === "worked 0")).toHaveLength((spent - 10) / 30);
    expect(
      outputs.filter((o) => o.startsWith("incomplete (budget exhausted: maxTokens")),
    ).toHaveLength(100 - (spent - 10) / 30);
  });

  it("admits against maxTurns too: the pool is never exceeded", async () => {
    const { edge, log } = treeRig({
      tasks: 40,
      pings: 0,
      coordinator: { maxTurns: 12, maxChildrenPerTurn: 40 },
    });
    const view = await inTreeObject(edge, "work", (o, runId) => viewOf(o, runId));
    const turns = view.tree.reduce((sum, h) => sum + h.turns, 0);
    expect(turns).toBe(12);
    expect(log.coordinatorCalls).toBe(1);
  });

  it("costs the object the same per child at 100 and at 400 children (statements and rows, not time)", async () => {
    const at100 = await fanOutCost(100);
    const at400 = await fanOutCost(400);
    // Linear: four times the children, four times the work, give or take the run's fixed cost.
    // Before the fix the budget walk read every handle row before every model call of every
    // child: rows grew with the square of the tree (17,290 at 100 children, 249,040 at 400).
    expect(at400.statements).toBeLessThanOrEqual(4 * at100.statements);
    expect(at400.rows).toBeLessThanOrEqual(4 * at100.rows);
    expect(at400.rows / 400).toBeLessThan(40);
  });
});

/** One fan-out of `n` children, run in an object whose SQL is counted (statements, rows to JS). */
async function fanOutCost(n: number): Promise<{ statements: number; rows: number }> {
  const { edge } = treeRig({
    tasks: n,
    pings: 0,
    coordinator: { maxChildrenPerTurn: n, maxDescendants: n },
  });
  const threadId = newThreadId();
  const runId = newRunId(threadId);
  const queue = { send: async () => {}, sendBatch: async () => {} };
  return runInDurableObject(threadStub(threadId), async (_instance, state) => {
    const counts = { statements: 0, rows: 0 };
    const sql = state.storage.sql;
    const exec = sql.exec.bind(sql);
    Object.defineProperty(sql, "exec", {
      configurable: true,
      value: (text: string, ...bindings: unknown[]) => {
        counts.statements += 1;
        const cursor = exec(text, ...bindings);
        const raw = [...cursor.raw()];
        counts.rows += raw.length;
        const columnNames = cursor.columnNames;
        return {
          raw: () => raw.values(),
          toArray: () => raw.map((r) => Object.fromEntries(columnNames.map((c, i) => [c, r[i]]))),
          columnNames,
          rowsRead: cursor.rowsRead,
          rowsWritten: cursor.rowsWritten,
        };
      },
    });
    const object = new edge.ThreadObject(state, {
      ...env,
      RESUME_QUEUE: queue,
      NOTIFY_QUEUE: queue,
    });
    await object.start({ runId, threadId, agent: "coordinator", input: "work", publicUrl: BASE });
    const before = { ...counts };
    await object.drive(runId);
    const view = await viewOf(object, runId);
    expect(taskOutputs(view).filter((o) => o === "worked 0")).toHaveLength(n);
    await state.storage.deleteAlarm();
    return { statements: counts.statements - before.statements, rows: counts.rows - before.rows };
  });
}
