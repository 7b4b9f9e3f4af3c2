/**
 * `defineAgent({ onFailure: "compensate" })` (issue 44): a run that fails, or is cancelled,
 * after calls with a `compensate` completed takes them back on its own, last first; an agent
 * without it leaves them. Driven inside the thread's object (no queue: the test drives).
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { createEdge } from "../../src/create-edge";
import { defineAgent } from "../../src/edge/agent";
import { defineTool } from "../../src/core/tools/define";
import { requireApproval } from "../../src/core/tools/approval";
import type { ModelRequest } from "../../src/core/providers/model";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { BASE } from "../helpers/edge";
import { threadStub } from "../helpers/durable";
import type { RunView } from "../../src/edge/protocol";

function tripsEdge(onFailure: boolean, last: "fail" | "pay") {
  const undone: string[] = [];
  const book = defineTool<{ item: string }>({
    name: "book",
    description: "Book an item",
    run: ({ item }) => `booked ${item}`,
    compensate: ({ item }) => {
      undone.push(item);
      return `cancelled ${item}`;
    },
  });
  const pay = requireApproval(defineTool({ name: "pay", description: "Pay", run: () => "paid" }));
  const agent = defineAgent({
    name: "trips",
    description: "Books trips",
    systemPrompt: "t",
    tools: [book, pay],
    ...(onFailure ? { onFailure: "compensate" as const } : {}),
    demoModel: (request: ModelRequest) => {
      const done = request.messages.filter((m) => m.role === "tool").length;
      if (done < 2) {
        return { toolCalls: [{ name: "book", arguments: { item: done === 0 ? "room" : "car" } }] };
      }
      if (last === "fail") {
        throw new Error("the model is down");
      }
      return { toolCalls: [{ name: "pay", arguments: {} }] };
    },
  });
  return { edge: createEdge({ agents: [agent] }), undone };
}

async function inObject<R>(
  edge: ReturnType<typeof createEdge>,
  fn: (
    object: InstanceType<ReturnType<typeof createEdge>["ThreadObject"]>,
    runId: string,
  ) => Promise<R>,
): Promise<R> {
  const threadId = newThreadId();
  const runId = newRunId(threadId);
  const queue = { send: async () => {}, sendBatch: async () => {} };
  return runInDurableObject(threadStub(threadId), async (_instance, state) => {
    const object = new edge.ThreadObject(state, {
      ...env,
      RESUME_QUEUE: queue,
      NOTIFY_QUEUE: queue,
    });
    await object.start({ runId, threadId, agent: "trips", input: "book a trip", publicUrl: BASE });
    await object.drive(runId);
    const result = await fn(object, runId);
    await state.storage.deleteAlarm();
    return result;
  });
}

describe('defineAgent({ onFailure: "compensate" })', () => {
  it("a failed run compensates its completed calls, last first", async () => {
    const { edge, undone } = tripsEdge(true, "fail");
    await inObject(edge, async (object, runId) => {
      await object.drive(runId);
      const view = (await object.getRun(runId)) as RunView | undefined;
      expect(view).toMatchObject({
        status: "compensated",
        error: { code: "driver_failed", message: expect.stringMatching(/the model is down/) },
        undo: {
          requestedBy: "onFailure",
          reason: expect.stringMatching(/^run failed: .*the model is down/),
          compensations: [
            { callId: expect.any(String), tool: "book", status: "ran" },
            { callId: expect.any(String), tool: "book", status: "ran" },
          ],
        },
      });
      expect(undone).toEqual(["car", "room"]);
    });
  });

  it("a cancelled run compensates too", async () => {
    const { edge, undone } = tripsEdge(true, "pay");
    await inObject(edge, async (object, runId) => {
      expect(((await object.getRun(runId)) as RunView | undefined)?.status).toBe("pending");
      expect((await object.cancel(runId)).ok).toBe(true);
      await object.drive(runId);
      expect(await object.getRun(runId)).toMatchObject({
        status: "compensated",
        undo: { requestedBy: "onFailure", reason: "run cancelled" },
      });
      expect(undone).toEqual(["car", "room"]);
    });
  });

  it("without it, a failed run keeps what it did", async () => {
    const { edge, undone } = tripsEdge(false, "fail");
    await inObject(edge, async (object, runId) => {
      await object.drive(runId);
      const view = (await object.getRun(runId)) as RunView | undefined;
      expect(view?.status).toBe("failed");
      expect(view).not.toHaveProperty("undo");
      expect(undone).toEqual([]);
    });
  });
});
