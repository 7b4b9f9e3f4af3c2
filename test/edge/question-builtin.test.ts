/**
 * An agent that opts into the built-in `question` tool (`builtins: ["question"]`): its run
 * suspends with `kind: "question"`, a decision with the answers as `data` resumes it, and
 * the model reads them. An agent without the option never offers the tool.
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { createEdge } from "../../src/create-edge";
import { defineAgent } from "../../src/edge/agent";
import type { ModelRequest } from "../../src/core/providers/model";
import type { RunView } from "../../src/edge/protocol";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { BASE } from "../helpers/edge";
import { threadStub } from "../helpers/durable";

const offered: string[][] = [];
const model = (request: ModelRequest) => {
  offered.push(request.tools.map((t) => t.name));
  const last = request.messages.at(-1);
  if (last?.role === "user") {
    return {
      toolCalls: [
        {
          name: "question",
          arguments: { questions: [{ question: "Which plan?", options: ["basic", "pro"] }] },
        },
      ],
    };
  }
  return { content: `noted: ${String(last?.content)}` };
};
const asking = defineAgent({
  name: "asking",
  description: "Asks the user",
  systemPrompt: "…",
  tools: [],
  builtins: ["question"],
  demoModel: model,
});
const plain = defineAgent({
  name: "plain",
  description: "d",
  systemPrompt: "…",
  tools: [],
  demoModel: (request) => {
    offered.push(request.tools.map((t) => t.name));
    return { content: "hi" };
  },
});

async function inObject<R>(
  agent: string,
  fn: (
    object: InstanceType<ReturnType<typeof createEdge>["ThreadObject"]>,
    runId: string,
  ) => Promise<R>,
) {
  const edge = createEdge({ agents: [asking, plain] });
  const threadId = newThreadId();
  const runId = newRunId(threadId);
  const queue = { send: async () => {}, sendBatch: async () => {} };
  return runInDurableObject(threadStub(threadId), async (_instance, state) => {
    const object = new edge.ThreadObject(state, {
      ...env,
      RESUME_QUEUE: queue,
      NOTIFY_QUEUE: queue,
    });
    await object.start({ runId, threadId, agent, input: "sign me up", publicUrl: BASE });
    await object.drive(runId);
    const result = await fn(object, runId);
    await state.storage.deleteAlarm();
    return result;
  });
}

describe('builtins: ["question"] on an agent', () => {
  it("suspends as kind question and resumes with the answers", async () => {
    offered.length = 0;
    const { pendingView, done } = await inObject("asking", async (object, runId) => {
      const pendingView = (await object.getRun(runId)) as RunView;
      const decided = await object.decide({
        runId,
        requestId: pendingView.pending!.id,
        decision: "approve",
        data: { answers: ["pro"] },
        channel: "webhook",
      });
      expect(decided.ok).toBe(true);
      await object.drive(runId);
      return { pendingView, done: (await object.getRun(runId)) as RunView };
    });
    expect(pendingView.status).toBe("pending");
    expect(pendingView.pending).toMatchObject({
      kind: "question",
      prompt: "Which plan? (options: basic, pro)",
      data: { questions: [{ question: "Which plan?", options: ["basic", "pro"] }] },
    });
    expect(offered[0]).toEqual(["question"]);
    expect(done.status).toBe("done");
    expect(done.text).toBe('noted: {"answers":["pro"]}');
  });

  it("is never offered to an agent that did not ask for it", async () => {
    offered.length = 0;
    const run = await inObject(
      "plain",
      async (object, runId) => (await object.getRun(runId)) as RunView,
    );
    expect(run.status).toBe("done");
    expect(offered).toEqual([[]]);
  });
});
