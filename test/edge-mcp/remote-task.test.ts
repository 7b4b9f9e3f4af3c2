// The durable wait on a remote A2A task (durable/thread/remote/remote-tasks.ts): a call whose remote task
// still works after the inline window suspends the run on a `remote_task` request that no
// person decides — no notification, no inbox row, a webhook decision refused — and that the
// thread's alarm polls with GetTask and answers when the task is done, also after the
// object was evicted. The remote is test/fixtures/fake-a2a.ts.
import { describe, expect, it } from "vitest";
import { abortAllDurableObjects, SELF } from "cloudflare:test";
import { failTask, fakeA2a, finishTask } from "../fixtures/fake-a2a";
import { fixtureState, HOOKS_ORIGIN } from "../fixtures/mcp-edge-worker";
import { CRUNCH_TOOL, DELEGATE_AGENT } from "../fixtures/protocol-agents";
import { sqlIn } from "../helpers/durable";
import { API_TOKEN, BASE, getRun, signedDecision, startRun, waitForStatus } from "../helpers/edge";

async function startWaiting() {
  const callbackUrl = `${HOOKS_ORIGIN}/remote/${crypto.randomUUID()}`;
  const { runId, threadId } = await startRun({
    agent: DELEGATE_AGENT,
    input: "crunch it",
    callbackUrl,
  });
  const run = await waitForStatus(runId, ["pending"]);
  return { runId, threadId, run, callbackUrl };
}

describe("a remote A2A task the run waits on durably", () => {
  it("suspends on a remote_task request nobody is asked about, and finishes when the alarm sees the task done", async () => {
    const { runId, threadId, run, callbackUrl } = await startWaiting();
    expect(run.pending).toMatchObject({
      kind: "remote_task",
      data: { agent: "Cruncher", tool: CRUNCH_TOOL, state: "working", pollEvery: 50 },
    });
    const taskId = (run.pending!.data as { taskId: string }).taskId;
    expect(fakeA2a.tasks.get(taskId)?.state).toBe("working");
    // Nobody is told or asked: no notification, no inbox row, no approval link.
    expect(fixtureState.notifications.filter((n) => n.url === callbackUrl)).toEqual([]);
    expect(await sqlIn(threadId, "SELECT * FROM inbox_outbox")).toEqual([]);
    expect(await sqlIn(threadId, "SELECT * FROM inbox_requests")).toEqual([]);
    expect(await sqlIn(threadId, "SELECT * FROM notify_outbox")).toEqual([]);
    expect(run.approvalUrl).toBeUndefined();
    // A person cannot answer it for the remote.
    const forged = await signedDecision({
      runId,
      requestId: run.pending!.id,
      decision: "approve",
      data: { task: { id: taskId, state: "completed", statusText: "", output: "forged" } },
    });
    expect(forged.status).toBe(409);
    expect((await forged.json<any>()).error.code).toBe("request_not_decidable");
    // Our own A2A callers see the task working, not waiting for input.
    const a2a = await SELF.fetch(`${BASE}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: runId } }),
    });
    expect((await a2a.json<any>()).result.status.state).toBe("working");

    // The alarm keeps polling while the remote works.
    const polled = fakeA2a.gets;
    await until(() => fakeA2a.gets > polled + 1);
    expect((await getRun(runId)).status).toBe("pending");

    finishTask(taskId, "42 crunched");
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe("Remote said: 42 crunched");
    expect(done.decisions).toHaveLength(1);
    expect(done.decisions[0]).toMatchObject({
      channel: "a2a",
      decidedBy: "a2a:Cruncher",
      decision: "approve",
    });
    expect(fixtureState.notifications.filter((n) => n.url === callbackUrl)).toEqual([]);
  });

  it("the wait survives the object's eviction: a fresh instance's alarm polls and answers", async () => {
    const { runId, run } = await startWaiting();
    const taskId = (run.pending!.data as { taskId: string }).taskId;
    await abortAllDurableObjects();
    finishTask(taskId, "crunched after eviction");
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe("Remote said: crunched after eviction");
  });

  it("a remote task that fails ends the call with the SPEC's error result", async () => {
    const sends = fakeA2a.sends;
    const { runId, run } = await startWaiting();
    // One SendMessage, then the wait: the call was not sent twice by the resume.
    expect(fakeA2a.sends).toBe(sends + 1);
    const taskId = (run.pending!.data as { taskId: string }).taskId;
    failTask(taskId);
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe(`Failed: A2A task ${taskId} failed`);
    expect(fakeA2a.sends).toBe(sends + 1);
  });
});

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error("condition not met in time");
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
