// The edge's MCP client and a server that answers with tasks (test/fixtures/task-mcp.ts): after
// the inline window (remoteTaskWindowMs, 100 ms in the fixture) the run waits durably on a
// `remote_task` request; the thread object's alarm polls `tasks/get` (each poll on the run's
// timeline as `task_polled`), the object evicted meanwhile; when the task completes the call
// finishes without being sent again. Cancelling a run that waits sends `tasks/cancel`.
import { describe, expect, it } from "vitest";
import { abortAllDurableObjects } from "cloudflare:test";
import { api, getRun, startRun, waitForStatus } from "../helpers/edge";
import { TASK_AGENT, taskMcpState } from "../fixtures/task-mcp";

async function eventTypes(runId: string): Promise<Array<{ event: string; data: any }>> {
  const response = await api(`/v1/runs/${runId}/events`);
  return (await response.text())
    .split("\n\n")
    .filter((block) => block.startsWith("id: "))
    .map((block) => {
      const [, event, data] = block.split("\n").map((line) => line.slice(line.indexOf(": ") + 2));
      return { event: event!, data: JSON.parse(data!) };
    });
}

describe("MCP tasks extension, client side, at the edge", () => {
  it("a task is waited for durably (alarm polls, eviction between) and its result ends the call", async () => {
    const mark = taskMcpState.seen.length;
    const { runId } = await startRun({ agent: TASK_AGENT, input: "slow" });
    const waiting = await waitForStatus(runId, ["pending", "done", "failed"]);
    expect(waiting.status).toBe("pending");
    expect(waiting.pending).toMatchObject({
      kind: "remote_task",
      data: { tool: "jobs_slow", mcpTask: { server: "jobs" } },
    });
    await abortAllDurableObjects();
    const done = await waitForStatus(runId, ["done", "failed", "incomplete"], 30_000);
    expect(done.status).toBe("done");
    expect(done.text).toBe("Result: slow finished");
    const seen = taskMcpState.seen.slice(mark);
    expect(seen.filter((m) => m.method === "tools/call")).toHaveLength(1);
    expect(seen.filter((m) => m.method === "tasks/get").length).toBeGreaterThanOrEqual(8);
    const polled = (await eventTypes(runId)).filter((e) => e.event === "task_polled");
    expect(polled.length).toBeGreaterThanOrEqual(1);
    expect(polled.at(-1)!.data).toMatchObject({ state: "completed" });
  });

  it("cancelling a run that waits on a task sends tasks/cancel", async () => {
    const { runId } = await startRun({ agent: TASK_AGENT, input: "forever" });
    const waiting = await waitForStatus(runId, ["pending", "done", "failed"]);
    expect(waiting.pending?.kind).toBe("remote_task");
    const taskId = (waiting.pending!.data as { taskId: string }).taskId;
    const cancelled = await api(`/v1/runs/${runId}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(200);
    expect((await getRun(runId)).status).toBe("cancelled");
    expect(
      taskMcpState.seen.some((m) => m.method === "tasks/cancel" && m.params.taskId === taskId),
    ).toBe(true);
    expect(taskMcpState.tasks.get(taskId)!.status).toBe("cancelled");
  });
});
