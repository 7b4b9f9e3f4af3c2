/**
 * The undo window (issue 44, docs/undo.md): with approver rule `delay`, a met quorum is held;
 * the tool runs only once the delay has passed (the alarm is armed for that moment), and
 * meanwhile any approver may revoke the approval, which declines the call `revoked by <who>`.
 * A revoke racing the end of the window: whichever comes first is the one outcome.
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { createEdge } from "../../src/create-edge";
import { defineAgent } from "../../src/edge/agent";
import { defineTool } from "../../src/core/tools/define";
import { requireApproval } from "../../src/core/tools/approval";
import type { ModelRequest } from "../../src/core/providers/model";
import type { DecisionInput, RunView } from "../../src/edge/protocol";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { parseApproverDirectory } from "../../src/edge/approvals/groups";
import { nextWork, type DriverDeps } from "../../durable/thread/drive/driver";
import { revokeApproval } from "../../durable/undo/revoke";
import { heldUntil } from "../../durable/undo/window";
import { BASE } from "../helpers/edge";
import { threadStub } from "../helpers/durable";
import type { ThreadObjectInternals } from "../../durable/thread/object";

const HOUR = 60 * 60_000;

function paymentsEdge() {
  const paid: number[] = [];
  const pay = requireApproval<{ cents: number }>(
    defineTool<{ cents: number }>({
      name: "pay",
      description: "Pay",
      run: ({ cents }) => {
        paid.push(cents);
        return `paid ${cents}`;
      },
    }),
    { approvers: { group: "finance", delay: "1h" } },
  );
  const agent = defineAgent({
    name: "payments",
    description: "Pays",
    systemPrompt: "p",
    tools: [pay],
    demoModel: (request: ModelRequest) => {
      const result = request.messages.findLast((m) => m.role === "tool");
      return result
        ? { content: `result: ${result.content}` }
        : { toolCalls: [{ name: "pay", arguments: { cents: 500 } }] };
    },
  });
  return { edge: createEdge({ agents: [agent] }), paid };
}

type PaymentsObject = InstanceType<ReturnType<typeof createEdge>["ThreadObject"]>;

async function approvedPayment<R>(
  fn: (ctx: {
    object: PaymentsObject;
    runId: string;
    requestId: string;
    state: DurableObjectState;
    paid: number[];
  }) => Promise<R>,
): Promise<R> {
  const { edge, paid } = paymentsEdge();
  const threadId = newThreadId();
  const runId = newRunId(threadId);
  const queue = { send: async () => {}, sendBatch: async () => {} };
  return runInDurableObject(threadStub(threadId), async (_instance, state) => {
    const object = new edge.ThreadObject(state, {
      ...env,
      RESUME_QUEUE: queue,
      NOTIFY_QUEUE: queue,
    });
    await object.start({ runId, threadId, agent: "payments", input: "pay", publicUrl: BASE });
    await object.drive(runId);
    const view = (await object.getRun(runId)) as RunView;
    expect(view.status).toBe("pending");
    const requestId = view.pending!.id;
    const approved = await object.decide({
      runId,
      requestId,
      decision: "approve",
      decidedBy: "ann@example.com",
      channel: "webhook",
    });
    expect(approved).toMatchObject({ ok: true, duplicate: false });
    const result = await fn({ object, runId, requestId, state, paid });
    await state.storage.deleteAlarm();
    return result;
  });
}

const revoke = (runId: string, requestId: string, who: string): DecisionInput => ({
  runId,
  requestId,
  decision: "revoke",
  decidedBy: who,
  channel: "webhook",
});

describe("approver rule delay: the undo window", () => {
  it("holds the approval (the alarm is set for the window's end); a revoke declines the call `revoked by <who>`", async () => {
    await approvedPayment(async ({ object, runId, requestId, state, paid }) => {
      await object.drive(runId);
      let view = (await object.getRun(runId)) as RunView;
      expect(view.status).toBe("pending");
      expect(paid).toEqual([]);
      const decidedAt = Date.parse(view.decisions[0]!.decidedAt);
      expect(await state.storage.getAlarm()).toBe(decidedAt + HOUR);

      // The inboxes show the approval held, with the window's end (their Undo button).
      const [inboxRow] = state.storage.sql
        .exec("SELECT item FROM inbox_requests WHERE request_id = ?", requestId)
        .toArray();
      expect(JSON.parse(String(inboxRow?.item))).toMatchObject({
        decision: { outcome: "approved" },
        heldUntil: new Date(decidedAt + HOUR).toISOString(),
      });

      const outsider = await object.decide(revoke(runId, requestId, "lead@example.com"));
      expect(outsider).toMatchObject({ ok: false, code: "not_an_approver" });

      const revoked = await object.decide(revoke(runId, requestId, "carol@example.com"));
      expect(revoked).toMatchObject({
        ok: true,
        duplicate: false,
        decision: { decision: "revoke", decidedBy: "carol@example.com" },
      });
      await object.drive(runId);
      view = (await object.getRun(runId)) as RunView;
      expect(view.status).toBe("done");
      expect(paid).toEqual([]);
      expect(view.toolCalls[0]).toMatchObject({ name: "pay", isError: true });
      expect(view.toolCalls[0]!.output).toContain("revoked by carol@example.com");
      expect(view.decisions[0]).toMatchObject({
        decision: "revoke",
        answer: { ok: false, reason: "revoked by carol@example.com" },
      });

      const drafts = state.storage.sql
        .exec("SELECT draft, jws FROM receipts WHERE run_id = ? ORDER BY seq", runId)
        .toArray();
      const decisions = drafts.map((row) =>
        row.jws
          ? JSON.parse(atob(String(row.jws).split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")))
              .decision
          : JSON.parse(String(row.draft)).decision,
      );
      expect(decisions).toEqual(["approved", "revoked"]);

      // After the call was declined there is nothing left to revoke.
      const late = await object.decide(revoke(runId, requestId, "bob"));
      expect(late).toMatchObject({ ok: false, code: "request_not_pending" });
    });
  });

  it("a revoke racing the window's end: revoke first ⇒ declined; the end first ⇒ the approval runs and the revoke is 409 request_not_pending", async () => {
    for (const order of ["revoke first", "end first"] as const) {
      await approvedPayment(async ({ object: outer, runId, requestId }) => {
        const object = outer as unknown as ThreadObjectInternals;
        const store = object.store;
        const deps = (now: number) =>
          ({ store, votes: object.votes, now: () => now }) as unknown as DriverDeps;
        const directory = parseApproverDirectory(env as { APPROVER_GROUPS?: string });
        const ledger = { store, votes: object.votes, directory };
        const run = store.requireRun(runId);
        const decision = store.decision(requestId)!;
        const end = heldUntil(decision, run.pending ?? undefined)!;
        expect(end).toBe(decision.decidedAt + HOUR);
        expect(nextWork(deps(end - 1), run)).toBeUndefined(); // still held

        if (order === "revoke first") {
          expect(revokeApproval(ledger, revoke(runId, requestId, "bob"), end - 1)).toMatchObject({
            ok: true,
          });
          const work = nextWork(deps(end), store.requireRun(runId));
          expect(work).toMatchObject({
            kind: "answer",
            decision: { decision: "revoke", answer: { ok: false, reason: "revoked by bob" } },
          });
        } else {
          const work = nextWork(deps(end), run);
          expect(work).toMatchObject({ kind: "answer", decision: { decision: "approve" } });
          expect(revokeApproval(ledger, revoke(runId, requestId, "bob"), end)).toMatchObject({
            ok: false,
            code: "request_not_pending",
          });
          expect(store.decision(requestId)?.decision).toBe("approve");
        }
      });
    }
  });
});
