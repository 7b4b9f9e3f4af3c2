/**
 * An undo that needs approval (issue 44): `defineAgent({ undo: { approvers } })` makes the undo
 * a request like any other — quorum, the asker may not approve it, approvers may edit only its
 * reason — and nothing is compensated until it is approved; a declined undo undoes nothing.
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { createEdge } from "../../src/create-edge";
import { defineAgent } from "../../src/edge/agent";
import { defineTool } from "../../src/core/tools/define";
import { argsHash } from "../../src/core/approvers/args-hash";
import type { ModelRequest } from "../../src/core/providers/model";
import type { DecisionInput, RunView } from "../../src/edge/protocol";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { BASE } from "../helpers/edge";
import { threadStub } from "../helpers/durable";

function tripsEdge() {
  const undone: string[] = [];
  const book = defineTool<{ item: string }>({
    name: "book",
    description: "Book an item",
    run: ({ item }) => `booked ${item}`,
    compensate: ({ item }, _result, ctx) => {
      undone.push(`${item}: ${ctx.reason}`);
      return `cancelled ${item}`;
    },
  });
  const agent = defineAgent({
    name: "trips",
    description: "Books trips",
    systemPrompt: "t",
    tools: [book],
    undo: { approvers: { group: "finance", quorum: 2 } },
    demoModel: (request: ModelRequest) =>
      request.messages.some((m) => m.role === "tool")
        ? { content: "booked" }
        : { toolCalls: [{ name: "book", arguments: { item: "room" } }] },
  });
  return { edge: createEdge({ agents: [agent] }), undone };
}

type TripsObject = InstanceType<ReturnType<typeof createEdge>["ThreadObject"]>;

async function finishedTrip(
  fn: (object: TripsObject, runId: string, undone: string[]) => Promise<void>,
) {
  const { edge, undone } = tripsEdge();
  const threadId = newThreadId();
  const runId = newRunId(threadId);
  const queue = { send: async () => {}, sendBatch: async () => {} };
  await runInDurableObject(threadStub(threadId), async (_instance, state) => {
    const object = new edge.ThreadObject(state, {
      ...env,
      RESUME_QUEUE: queue,
      NOTIFY_QUEUE: queue,
    });
    await object.start({ runId, threadId, agent: "trips", input: "book", publicUrl: BASE });
    await object.drive(runId);
    expect(((await object.getRun(runId)) as RunView).status).toBe("done");
    await fn(object, runId, undone);
    await state.storage.deleteAlarm();
  });
}

const view = async (object: TripsObject, runId: string) => (await object.getRun(runId)) as RunView;

describe("defineAgent({ undo: { approvers } })", () => {
  it("asks first: quorum, not the asker, the reason the only edit; approved, it compensates with the approved reason", async () => {
    await finishedTrip(async (object, runId, undone) => {
      const asked = await object.undo({
        runId,
        reason: "wrong trip",
        requestedBy: "ann@example.com",
      });
      expect(asked).toMatchObject({
        ok: true,
        started: true,
        undo: { state: "awaiting_approval" },
      });
      const request = asked.ok ? asked.undo.request! : undefined;
      expect(request).toMatchObject({
        kind: "approval",
        data: {
          tool: "undo",
          args: { reason: "wrong trip" },
          approvers: { group: "finance", quorum: 2, editable: ["reason"] },
        },
      });
      const vote = (who: string, extra: Partial<DecisionInput> = {}) =>
        object.decide({
          runId,
          requestId: request!.id,
          decision: "approve",
          decidedBy: who,
          channel: "webhook",
          ...extra,
        });

      await object.drive(runId);
      expect(undone).toEqual([]); // nothing before the approval
      expect(await vote("ann@example.com")).toMatchObject({ ok: false, code: "own_request" });
      expect(
        await vote("bob", {
          args: { reason: "x", item: "car" },
          argsHash: argsHash({ reason: "wrong trip" }),
        }),
      ).toMatchObject({ ok: false });
      const edited = { reason: "double booking" };
      expect(
        await vote("bob", { args: edited, argsHash: argsHash({ reason: "wrong trip" }) }),
      ).toMatchObject({ ok: true, decision: null, votes: 1, needed: 2 });
      expect((await view(object, runId)).undo?.state).toBe("awaiting_approval");

      expect(await vote("carol@example.com", { argsHash: argsHash(edited) })).toMatchObject({
        ok: true,
        decision: { decision: "approve" },
      });
      await object.drive(runId);
      const done = await view(object, runId);
      expect(done).toMatchObject({
        status: "compensated",
        undo: { state: "compensated", reason: "double booking", requestedBy: "ann@example.com" },
      });
      expect(undone).toEqual(["room: double booking"]);
      // The repeat of the undo answers with this one.
      expect(
        await object.undo({ runId, reason: "again", requestedBy: "dan@example.com" }),
      ).toMatchObject({
        ok: true,
        started: false,
        undo: { state: "compensated" },
      });
    });
  });

  it("declined, nothing is undone (and the undo may be asked again)", async () => {
    await finishedTrip(async (object, runId, undone) => {
      const asked = await object.undo({
        runId,
        reason: "wrong trip",
        requestedBy: "ann@example.com",
      });
      const request = asked.ok ? asked.undo.request! : undefined;
      const declined = await object.decide({
        runId,
        requestId: request!.id,
        decision: "decline",
        reason: "the trip is right",
        decidedBy: "bob",
        channel: "webhook",
      });
      expect(declined).toMatchObject({ ok: true, decision: { decision: "decline" } });
      await object.drive(runId);
      expect(await view(object, runId)).toMatchObject({
        status: "done",
        undo: { state: "declined" },
      });
      expect(undone).toEqual([]);
      const again = await object.undo({
        runId,
        reason: "really wrong",
        requestedBy: "ann@example.com",
      });
      expect(again).toMatchObject({
        ok: true,
        started: true,
        undo: { state: "awaiting_approval", reason: "really wrong" },
      });
    });
  });
});
