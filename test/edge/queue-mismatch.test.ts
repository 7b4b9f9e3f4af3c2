/**
 * A queue wrangler.toml names but createEdge({ queues }) does not: the consumer handles
 * each message by what its body says, so the run goes on, and the mismatch is reported
 * once, as a configuration error, to the error sink and on the run's events.
 */
import { describe, expect, it } from "vitest";
import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runInDurableObject,
} from "cloudflare:test";
import { createEdge } from "../../src/create-edge";
import { supportAgent } from "../../src/edge/demo/agent";
import type { ErrorInfo } from "../../src/edge/error-sink";
import type { DriveMessage, RunView } from "../../src/edge/protocol";
import type { ThreadObjectInternals } from "../../durable/thread/object";
import { messageKind } from "../../src/edge/notify/queue-kinds";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { BASE } from "../helpers/edge";
import { threadStub } from "../helpers/durable";

describe("messageKind", () => {
  it("tells a resume body from a notify body, and neither from junk", () => {
    expect(messageKind({ threadId: "t", runId: "r" })).toBe("resume");
    expect(messageKind({ threadId: "t", runId: "r", requestId: "q" })).toBe("notify");
    expect(messageKind({ threadId: "t", runId: "r", requestId: "q", slack: { group: "g" } })).toBe(
      "notify",
    );
    expect(messageKind({})).toBe("unknown");
    expect(messageKind(null)).toBe("unknown");
    expect(messageKind("resume")).toBe("unknown");
  });
});

describe("a misnamed resume queue", () => {
  it("still drives the run, and says why once in the sink and on the run's events", async () => {
    const reported: Array<{ error: Error; info: ErrorInfo }> = [];
    const edge = createEdge({
      agents: [supportAgent],
      onError: (error, info) => reported.push({ error, info }),
    });
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const sent: DriveMessage[] = [];
    const resumeQueue = {
      send: async (m: DriveMessage) => void sent.push(m),
      sendBatch: async () => {},
    };
    const result = await runInDurableObject(threadStub(threadId), async (_instance, state) => {
      const object = new edge.ThreadObject(state, { ...env, RESUME_QUEUE: resumeQueue });
      // The consumer reaches this very object (the deployed worker's consumer never sees it).
      const threads = { idFromName: () => ({}), get: () => object };
      const started = await object.start({
        runId,
        threadId,
        agent: "support",
        input: "What is your refund policy?",
        publicUrl: BASE,
      });
      expect(started.ok).toBe(true);
      const deliver = async () => {
        const batch = createMessageBatch("my-resume-queue", [
          { id: `m${Math.random()}`, timestamp: new Date(), attempts: 1, body: sent[0] },
        ]);
        const ctx = createExecutionContext();
        await edge.worker.queue!(batch, { ...env, THREADS: threads }, ctx);
        return getQueueResult(batch, ctx);
      };
      const first = await deliver();
      const again = await deliver(); // a second message for the same run: told once
      const run = (await object.getRun(runId)) as RunView;
      const rows = (object as unknown as ThreadObjectInternals).store.eventsAfter(runId, 0);
      await state.storage.deleteAlarm();
      return {
        first,
        again,
        run,
        events: rows.map((r) => ({ type: r.type, data: JSON.parse(r.data) })),
      };
    });
    expect(result.first.explicitAcks).toHaveLength(1);
    expect(result.first.retryMessages).toEqual([]);
    expect(result.again.explicitAcks).toHaveLength(1);
    expect(result.run.status).toBe("done");
    const configErrors = result.events.filter((e) => e.data.code === "config_error");
    expect(configErrors).toHaveLength(1);
    expect(configErrors[0]!.type).toBe("error");
    expect(configErrors[0]!.data.message).toMatch(
      /"my-resume-queue" is not one of this edge's queues \(toolnexus-resume,.*createEdge\(\{ queues \}\)/,
    );
    expect(result.events.map((e) => e.type)).toContain("done");
    expect(reported).toHaveLength(1);
    expect(reported[0]!.error.name).toBe("ConfigError");
    expect(reported[0]!.info).toEqual({ source: "queue", recoverable: false });
  });

  it("retries a message whose body says nothing, reporting the mismatch", async () => {
    const reported: Array<{ error: Error; info: ErrorInfo }> = [];
    const edge = createEdge({
      agents: [supportAgent],
      onError: (error, info) => reported.push({ error, info }),
    });
    const batch = createMessageBatch("my-other-queue", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: {} },
    ]);
    const ctx = createExecutionContext();
    await edge.worker.queue!(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).retryMessages).toHaveLength(1);
    expect(reported).toHaveLength(1);
    expect(reported[0]!.error.message).toMatch(/"my-other-queue" is not one of this edge's queues/);
  });
});
