/**
 * Issue 24 at the edge: the demo `coordinator` delegates to `lookup` and `refunds` inside
 * the thread's Durable Object. A child's four-eyes approval is the run's pending request
 * (with `data.path`), decided by finance through signed webhooks after the object was
 * evicted; the coordinator then finishes with the child's result, and the finished sibling's
 * tool has run exactly once.
 */
import { describe, expect, it } from "vitest";
import { abortAllDurableObjects } from "cloudflare:test";
import { api, getRun, signedDecision, startRun, waitForStatus } from "../helpers/edge";
import { eventsOf, sqlIn } from "../helpers/durable";
import { errorOf } from "../helpers/http";

const TICKET = "Refund $1200 on order 42"; // above $1,000: two members of finance

async function pendingTree(input = TICKET) {
  const started = await startRun({ agent: "coordinator", input });
  const run = await waitForStatus(started.runId, ["pending", "done", "failed"]);
  expect(run.status).toBe("pending");
  if (!run.pending) {
    throw new Error("pending without a request");
  }
  return { ...started, run, request: run.pending };
}

async function approve(runId: string, requestId: string, decidedBy: string) {
  const response = await signedDecision({ runId, requestId, decision: "approve", decidedBy });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe("a coordinator waiting on its child's four-eyes refund", () => {
  it("surfaces the child's request with data.path and the child's own approver rules", async () => {
    const { run, request } = await pendingTree();
    expect(request.data?.path).toEqual(["root", "coordinator.1", "refunds.1"]);
    expect(request.data?.approvers).toMatchObject({ group: "finance", quorum: 2 });
    expect(request.prompt).toBe("Refund $1200 on order 42?");
    // The sibling finished while the refund waited: its result is in the tree already.
    const tree = (run as unknown as { tree: Array<Record<string, unknown>> }).tree;
    expect(tree.map((h) => [h.handle, h.agent, h.state])).toEqual([
      ["root/coordinator.1", "coordinator", "suspended"],
      ["root/coordinator.1/lookup.1", "lookup", "closed"],
      ["root/coordinator.1/refunds.1", "refunds", "suspended"],
    ]);
    expect(tree[2]?.pending).toMatchObject({ id: request.id });
    expect(tree[1]?.pending).toBeUndefined();
    expect(tree[1]?.turns).toBe(2);
  });

  it("is decided by two finance members after an eviction; the coordinator finishes with the child's result", async () => {
    const { runId, threadId, request } = await pendingTree();
    await abortAllDurableObjects(); // the tree lives in storage only

    expect(await approve(runId, request.id, "ann@example.com")).toMatchObject({
      status: 202,
      json: { votes: 1, needed: 2 },
    });
    await abortAllDurableObjects();
    expect((await approve(runId, request.id, "bob@example.com")).status).toBe(202);

    const done = await waitForStatus(runId, ["done", "failed"]);
    expect(done.status).toBe("done");
    expect(done.text).toContain("Refunded $1200 on order 42");
    expect(done.text).toContain("Order 42 is shipped");
    const tree = (done as unknown as { tree: Array<Record<string, unknown>> }).tree;
    expect(tree.map((h) => h.state)).toEqual(["closed", "closed", "closed"]);

    // The finished sibling was not re-run: one lookup_order and one refund execution in the whole log.
    const events = await eventsOf(runId);
    const executions = (name: string) =>
      events.filter((e) => e.type === "tool_result" && e.data.name === name);
    expect(executions("lookup_order")).toHaveLength(1);
    expect(executions("lookup_order")[0]?.data.handle).toBe("root/coordinator.1/lookup.1");
    expect(executions("refund_order")).toHaveLength(1);
    expect(executions("refund_order")[0]?.data.handle).toBe("root/coordinator.1/refunds.1");
    expect(executions("task")).toHaveLength(2);
    const [lookupRow] = await sqlIn(
      threadId,
      "SELECT tool_calls FROM agent_handles WHERE handle = ?",
      "root/coordinator.1/lookup.1",
    );
    expect(JSON.parse(String(lookupRow?.tool_calls))).toHaveLength(1);

    // Another vote on the settled child's request: 409, like any decided request.
    const late = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "carol@example.com",
    });
    expect(late.status).toBe(409);
    expect((await errorOf(late)).code).toBe("already_decided");
  });

  it("a decision for the request of a handle closed by a cancel is 409 request_not_pending", async () => {
    const { runId, request } = await pendingTree();
    const cancelled = await api(`/v1/runs/${runId}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(200);
    const run = await getRun(runId);
    const tree = (run as unknown as { tree: Array<Record<string, unknown>> }).tree;
    expect(tree.map((h) => h.state)).toEqual(["closed", "closed", "closed"]);
    expect(tree.some((h) => "pending" in h)).toBe(false);
    const late = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "ann@example.com",
    });
    expect(late.status).toBe(409);
    expect((await errorOf(late)).code).toBe("request_not_pending");
  });

  it("events carry the child's handle; subagent_started / subagent_finished frame each child", async () => {
    const { runId, request } = await pendingTree();
    const events = await eventsOf(runId);
    const started = events.filter((e) => e.type === "subagent_started").map((e) => e.data);
    expect(started).toEqual([
      expect.objectContaining({ handle: "root/coordinator.1/lookup.1", name: "lookup" }),
      expect.objectContaining({ handle: "root/coordinator.1/refunds.1", name: "refunds" }),
    ]);
    for (const s of started) {
      expect(typeof s.parentToolCallId).toBe("string");
      expect(s.description).toBeTruthy();
    }
    const finished = events.filter((e) => e.type === "subagent_finished").map((e) => e.data);
    expect(finished).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ handle: "root/coordinator.1/lookup.1", status: "done" }),
        {
          handle: "root/coordinator.1/refunds.1",
          status: "pending",
          requestIds: [request.id],
        },
      ]),
    );
    // Every event between a child's start and its finish that the child produced names it.
    const childCalls = events.filter(
      (e) =>
        e.type === "tool_call" &&
        (e.data.name === "lookup_order" || e.data.name === "refund_order"),
    );
    expect(childCalls.length).toBe(2);
    for (const e of childCalls) {
      expect(e.data.handle).toMatch(/^root\/coordinator\.1\/(lookup|refunds)\.1$/);
    }
    // The request surfaces once, as the run's pending event, with the handle that asked.
    const pendingEvents = events.filter((e) => e.type === "pending");
    expect(pendingEvents).toHaveLength(1);
    expect(pendingEvents[0]?.data.handle).toBe("root/coordinator.1/refunds.1");
    const run = await getRun(runId);
    expect(run.status).toBe("pending");
  });

  it("an agent without a team has no tree", async () => {
    const started = await startRun({ agent: "support", input: "where is order 42" });
    const run = await waitForStatus(started.runId, ["done"]);
    expect("tree" in run).toBe(false);
  });
});
