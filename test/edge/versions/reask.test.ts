/**
 * Issue 30 point 2: "the approval re-asked if the rule now requires someone else". A run suspended
 * "under v-old" (its stored version rewritten) meets a deploy whose `onVersionChange` migrates the
 * refund's amount. The new deploy is this thread object's own context built with the migrating
 * agent (what a redeployed object is: the same storage, other code); the decisions that follow go
 * through the worker as deployed, whose agent has the same version (onVersionChange is not in the
 * hash). The demo's refund needs one approval of anyone up to $1,000 and two of finance above.
 *
 * - The same rule ($1,500 → $1,400, two of finance either way): the votes stand, the tool runs
 *   with the migrated arguments (as before this issue).
 * - A raised rule ($120 → $1,500): the request is superseded and the same call asks two of
 *   finance; the approval that found it out and any later decision for the old id are `409
 *   request_not_pending` naming the new one; finance's decision completes the run with the
 *   migrated arguments, whose hash is the receipt's `argsHash`. At decision time and at apply time.
 * - Asking again that fails half-way writes nothing.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { argsHash } from "../../../src/core/approvers/args-hash";
import type { Request } from "../../../src/core/types";
import { createEdge } from "../../../src/create-edge";
import type { AgentDefinition } from "../../../src/edge/agent";
import { supportAgent } from "../../../src/edge/demo/agent";
import type { InboxItem } from "../../../src/edge/inbox/item";
import { notificationId, type Notification } from "../../../src/edge/notify/notification";
import type { DecisionInput, NotifyMessage } from "../../../src/edge/protocol";
import type { EdgeEnv } from "../../../src/edge/settings";
import { OutboxDelivery } from "../../../durable/outbox/delivery";
import { createThreadContext, type ThreadContext } from "../../../durable/thread/context";
import { decide } from "../../../durable/thread/decide";
import { drive } from "../../../durable/thread/drive";
import { reask } from "../../../durable/versions/reask";
import { api, getRun, signedDecision, waitForStatus } from "../../helpers/edge";
import { receiptsOf } from "../../helpers/receipts";
import { inThread, sqlIn, startPending } from "../../helpers/durable";
import { recordOnly } from "../../helpers/record-only";

const FINANCE = { group: "finance", quorum: 2, editable: ["amount"] };
const MIGRATED = { orderId: "42", amount: 1500 };
/** Unreachable on purpose: the worker's own delivery attempts fail fast; the test delivers itself. */
const CALLBACK = "http://127.0.0.1:9/hooks/reask";

const migratingTo = (amount: number): AgentDefinition => ({
  ...supportAgent,
  onVersionChange: ({ args }) => ({ args: { ...args, amount } }),
});

/**
 * Runs `fn` in the thread's object as a deploy of `agent` would: the object's storage, a context
 * with that agent. Its resume queue is a no-op: what it records it drives itself (`drive`), so the
 * object as deployed (the demo agent, its own drive lock) never drives the same decision.
 */
function underDeploy<R>(
  threadId: string,
  agent: AgentDefinition,
  fn: (t: ThreadContext, delivery: OutboxDelivery) => Promise<R>,
): Promise<R> {
  return inThread(threadId, async (_instance, state) => {
    const quiet = { send: async () => {}, sendBatch: async () => {} };
    const t = createThreadContext(state, { ...env, RESUME_QUEUE: quiet } as unknown as EdgeEnv, {
      options: { agents: [agent] },
      agents: new Map([[agent.name, agent]]),
      report: (error) => {
        throw error;
      },
    });
    return fn(t, new OutboxDelivery(t));
  });
}

async function underOldVersion(input: string, extra: Record<string, unknown> = {}) {
  const started = await startPending(input, extra);
  await sqlIn(started.threadId, "UPDATE runs SET agent_version = 'v-old'");
  return started;
}

async function deployedVersion(): Promise<string> {
  const { agents } = await (await api("/v1/agents")).json<{
    agents: Array<{ name: string; version: string }>;
  }>();
  return agents.find((a) => a.name === "support")?.version ?? "";
}

async function inboxItem(group: string, status: string, requestId: string) {
  const { items } = await (
    await api(`/v1/approvals?group=${group}&status=${status}&limit=200`)
  ).json<{ items: InboxItem[] }>();
  return items.find((item) => item.requestId === requestId);
}

/** The notify consumer's delivery of one message, its receiver faked: what was POSTed. */
async function notificationOf(message: NotifyMessage): Promise<{ id: string; body: Notification }> {
  const posted: Array<{ id: string; body: Notification }> = [];
  const edge = createEdge({
    agents: [supportAgent],
    fetch: async (input, init) => {
      const request = new Request(input, init);
      posted.push({ id: request.headers.get("webhook-id") ?? "", body: await request.json() });
      return new Response("ok");
    },
  });
  const batch = createMessageBatch<NotifyMessage>("toolnexus-notify", [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: message },
  ]);
  const ctx = createExecutionContext();
  await edge.worker.queue?.(batch, env as never, ctx);
  await getQueueResult(batch, ctx);
  const [first] = posted;
  if (!first) {
    throw new Error(`nothing was posted for ${message.requestId}`);
  }
  return first;
}

/** Finance's two approvals of the request asked again, through the worker as deployed. */
async function financeApproves(runId: string, requestId: string) {
  const base = { runId, requestId, decision: "approve" };
  const ann = await signedDecision({ ...base, decidedBy: "ann@example.com" });
  expect(ann.status).toBe(202);
  expect(await ann.json()).toMatchObject({ decision: null, votes: 1, needed: 2 });
  expect((await signedDecision({ ...base, decidedBy: "bob@example.com" })).status).toBe(202);
  return waitForStatus(runId, ["done", "failed"]);
}

/** A decision for the superseded id: 409 request_not_pending naming its successor. */
async function expectSuperseded(runId: string, requestId: string, next: string) {
  for (const decision of ["approve", "decline"]) {
    const response = await signedDecision({ runId, requestId, decision });
    expect(response.status).toBe(409);
    const { error } = await response.json<{ error: { code: string; message: string } }>();
    expect(error.code).toBe("request_not_pending");
    expect(error.message).toContain(`decide ${next}`);
  }
}

describe("onVersionChange migrates, and the rule for the migrated arguments", {
  timeout: 30_000,
}, () => {
  it("is the same: the votes stand and the tool runs with the migrated arguments", async () => {
    const { runId, threadId, request } = await underOldVersion("Refund order 42 for $1500");
    const agent = migratingTo(1400);
    const base = { runId, requestId: request.id, decision: "approve", channel: "webhook" } as const;
    const settled = await underDeploy(threadId, agent, async (t, delivery) => {
      const first = await decide(t, delivery, { ...base, decidedBy: "ann@example.com" });
      expect(first).toMatchObject({ ok: true, decision: null, votes: 1, needed: 2 });
      const second = await decide(t, delivery, { ...base, decidedBy: "bob@example.com" });
      await drive(t, delivery, runId);
      return second;
    });
    expect(settled).toMatchObject({
      ok: true,
      decision: { answer: { ok: true, data: { args: { orderId: "42", amount: 1400 } } } },
    });
    const run = await waitForStatus(runId, ["done"]);
    expect(run.text).toContain("Refunded $1400 on order 42");
    expect(run.decisions.map((d) => d.requestId)).toEqual([request.id]);
    const [receipt] = await receiptsOf(runId);
    expect(receipt).toMatchObject({
      decision: "approved",
      argsHash: argsHash({ orderId: "42", amount: 1400 }),
      rule: { group: "finance", quorum: 2 },
    });
  });

  it("raised, when a decision arrives: asked again of finance, the old id refused, finance's decision runs the migrated arguments", async () => {
    const { runId, threadId, request } = await underOldVersion("Refund order 42 for $120", {
      callbackUrl: CALLBACK,
    });
    expect(request.data?.approvers).toBeUndefined(); // anyone with a link could approve $120
    const next = `${request.id}_ask2`;
    const input: DecisionInput = {
      runId,
      requestId: request.id,
      decision: "approve",
      channel: "webhook",
    };
    const refused = await underDeploy(threadId, migratingTo(1500), (t, delivery) =>
      decide(t, delivery, input),
    );
    expect(refused).toMatchObject({ ok: false, code: "request_not_pending" });
    expect("message" in refused && refused.message).toContain(`decide ${next}`);

    // The run waits on the new request, made under the version deployed now.
    const run = await getRun(runId);
    expect(run.status).toBe("pending");
    expect(run.agentVersion).toBe(await deployedVersion());
    expect(run.pending).toMatchObject({
      id: next,
      prompt: "Refund $1500 on order 42?",
      data: { tool: "refund_order", args: MIGRATED, approvers: FINANCE, supersedes: request.id },
      argsHash: argsHash(MIGRATED),
    });
    expect(run.decisions).toEqual([
      expect.objectContaining({
        requestId: request.id,
        decision: "cancel",
        channel: "version",
        decidedBy: null,
        answer: {
          id: request.id,
          ok: false,
          reason: `superseded by ${next}: agent_changed: the migrated arguments of refund_order need other approvers`,
          data: { supersededBy: next },
        },
        appliedAt: expect.any(String),
      }),
    ]);
    await expectSuperseded(runId, request.id, next);

    // Notified like any request: finance's inbox shows it, the old item shows it cancelled,
    // and the callback's notification is about the new request.
    expect(await inboxItem("finance", "open", next)).toMatchObject({ args: MIGRATED });
    expect((await inboxItem("default", "decided", request.id))?.decision).toMatchObject({
      outcome: "cancelled",
      channel: "version",
    });
    const notified = await notificationOf({ threadId, runId, requestId: next });
    expect(notified.id).toBe(notificationId({ runId, request: { id: next } }));
    expect(notified.body).toMatchObject({ type: "run.pending", request: { id: next } });

    const done = await financeApproves(runId, next);
    expect(done.status).toBe("done");
    expect(done.text).toContain("Refunded $1500 on order 42");
    const receipts = await receiptsOf(runId);
    expect(receipts.map((r) => [r.seq, r.requestId, r.decision, r.channel])).toEqual([
      [1, request.id, "cancelled", "version"],
      [2, next, "approved", "webhook"],
    ]);
    const [superseded, approved] = receipts;
    expect(superseded).toMatchObject({
      agentVersion: "v-old",
      argsHash: argsHash({ orderId: "42", amount: 120 }),
      rule: null,
      reason: expect.stringContaining(`superseded by ${next}`),
    });
    expect(superseded?.decidedBy).toBeUndefined();
    expect(approved).toMatchObject({
      agentVersion: await deployedVersion(),
      argsHash: argsHash(MIGRATED),
      rule: { group: "finance", quorum: 2, editable: ["amount"] },
      decidedBy: "bob",
    });
    expect(approved?.votes?.map((v) => v.decidedBy)).toEqual(["ann@example.com", "bob"]);
    // The tool ran with exactly the arguments the receipt hashes.
    const ran = done.toolCalls.filter((c) => c.name === "refund_order");
    expect(ran).toHaveLength(1);
    expect(argsHash(ran[0]?.args as Record<string, unknown>)).toBe(approved?.argsHash);
  });

  it("raised, for an approval recorded before the deploy: the drive asks again instead of running it", async () => {
    const { runId, threadId, request } = await underOldVersion("Refund order 42 for $120");
    const next = `${request.id}_ask2`;
    const recorded = await recordOnly(
      { runId, requestId: request.id, decision: "approve", channel: "webhook" },
      (state) => state.storage.sql.exec("UPDATE decisions SET agent_version = 'v-old'"),
    );
    expect(recorded).toMatchObject({ ok: true, duplicate: false });
    await underDeploy(threadId, migratingTo(1500), async (t, delivery) => {
      await t.state.storage.deleteAlarm(); // the deployed object's backstop: this deploy drives it
      await drive(t, delivery, runId);
    });
    const run = await getRun(runId);
    expect(run.status).toBe("pending");
    expect((run.pending as Request | null)?.id).toBe(next);
    // Who decided stays; the answer is the superseding one, applied (nothing ran on it).
    expect(run.decisions).toEqual([
      expect.objectContaining({
        requestId: request.id,
        decision: "approve",
        channel: "webhook",
        answer: expect.objectContaining({ ok: false, data: { supersededBy: next } }),
        appliedAt: expect.any(String),
      }),
    ]);
    expect(run.toolCalls).toEqual([]);
    await expectSuperseded(runId, request.id, next);

    const done = await financeApproves(runId, next);
    expect(done.text).toContain("Refunded $1500 on order 42");
    const receipts = await receiptsOf(runId);
    expect(receipts.map((r) => [r.requestId, r.decision, r.channel])).toEqual([
      [request.id, "approved", "webhook"],
      [request.id, "cancelled", "version"],
      [next, "approved", "webhook"],
    ]);
    expect(receipts[2]?.argsHash).toBe(argsHash(MIGRATED));
    expect(argsHash(done.toolCalls[0]?.args as Record<string, unknown>)).toBe(
      receipts[2]?.argsHash,
    );
  });

  it("an approval whose data carries args asks nobody again: 400 invalid_data, the request stays (issue 37)", async () => {
    const { runId, threadId, request } = await underOldVersion("Refund order 42 for $120");
    const input: DecisionInput = {
      runId,
      requestId: request.id,
      decision: "approve",
      data: { args: { orderId: "42", amount: 50 } },
      channel: "webhook",
    };
    const refused = await underDeploy(threadId, migratingTo(1500), (t, delivery) =>
      decide(t, delivery, input),
    );
    expect(refused).toMatchObject({ ok: false, code: "invalid_data" });
    const run = await getRun(runId);
    expect(run).toMatchObject({ status: "pending", decisions: [], receiptCount: 0 });
    expect(run.pending?.id).toBe(request.id);
  });

  it("writes nothing when asking again fails half-way: the old request stays as it was", async () => {
    const { runId, threadId, request } = await underOldVersion("Refund order 42 for $120");
    // A request the run's rows do not hold as a suspended call: the ledger's row and its receipt
    // are written first, then the call's slot is not found and the transaction rolls back.
    const stray = { ...request, id: `${request.id}_stray` };
    const next = {
      ...request,
      id: `${stray.id}_ask2`,
      data: { ...request.data, supersedes: stray.id },
    };
    const failed = await underDeploy(threadId, migratingTo(1500), async (t) => {
      const run = t.store.requireRun(runId);
      const plan = { run, request: stray, next, reason: "agent_changed: test", version: "v-new" };
      return reask(t, plan).then(
        () => "asked",
        (error: Error) => error.message,
      );
    });
    expect(failed).toContain(`has no call suspended on ${stray.id}`);
    const run = await getRun(runId);
    expect(run).toMatchObject({ status: "pending", decisions: [], receiptCount: 0 });
    expect(run.pending?.id).toBe(request.id);
    expect(run.agentVersion).toBe("v-old");
    expect(
      await sqlIn(threadId, "SELECT COUNT(*) AS n FROM events WHERE type = 'superseded'"),
    ).toEqual([{ n: 0 }]);
    // And the request is decided as always.
    expect(
      (await signedDecision({ runId, requestId: request.id, decision: "decline" })).status,
    ).toBe(202);
  });
});
