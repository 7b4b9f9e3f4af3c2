/**
 * Issue 30: a decision recorded under one deploy and applied under the next. recordOnly leaves
 * the state of an object that died between recording an approval and applying it; the stored
 * versions (the run's, the decision's) are then rewritten to an older deploy's, and for the
 * declines the stored request to what that deploy asked. The alarm applies the decision under
 * the deploy now running: the same check as a decision arriving, so no tool runs with
 * arguments its current schema rejects, and a receipt says what the run was given instead.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { answerOutput } from "../../../src/core/answers";
import { argsHash } from "../../../src/core/approvers/args-hash";
import type { Request } from "../../../src/core/types";
import { agentTools } from "../../../src/edge/agent";
import { supportAgent } from "../../../src/edge/demo/agent";
import { ThreadReceipts } from "../../../durable/receipts/thread-receipts";
import { createLazySql } from "../../../durable/storage/sql";
import { hasSchema, migrate } from "../../../durable/storage/schema";
import { answerUnderCurrentVersion } from "../../../durable/versions/resume-check";
import { api, getRun, waitForStatus } from "../../helpers/edge";
import { receiptsOf } from "../../helpers/receipts";
import { inThread, sqlIn, startPending, transcriptOf } from "../../helpers/durable";
import { recordOnly } from "../../helpers/record-only";

const REFUND = "Refund order 42 for $120"; // one approval, no rules

async function deployedVersion(): Promise<string> {
  const { agents } = await (await api("/v1/agents")).json<{
    agents: Array<{ name: string; version: string }>;
  }>();
  return agents.find((a) => a.name === "support")?.version ?? "";
}

/**
 * An approval recorded, not applied, "under v-old": the run's and the decision's versions are
 * rewritten, and the stored request by `edit` (what the older deploy asked).
 */
async function approvedUnderOldVersion(
  edit: (request: Record<string, unknown>) => void = () => {},
  decisionVersion = "v-old",
) {
  const { runId, threadId, request, stub } = await startPending(REFUND);
  const [row] = await sqlIn(threadId, "SELECT pending FROM runs WHERE run_id = ?", runId);
  const stored = JSON.parse(String(row?.pending)) as Record<string, unknown>;
  edit(stored);
  await sqlIn(
    threadId,
    "UPDATE runs SET agent_version = 'v-old', pending = ? WHERE run_id = ?",
    JSON.stringify(stored),
    runId,
  );
  // In the decision's own transaction: the start's queue message may drive the run any moment.
  const outcome = await recordOnly(
    { runId, requestId: request.id, decision: "approve", channel: "webhook" },
    (state) => state.storage.sql.exec("UPDATE decisions SET agent_version = ?", decisionVersion),
  );
  expect(outcome).toMatchObject({ ok: true, duplicate: false });
  return { runId, threadId, requestId: request.id, stub };
}

async function toolResults(runId: string): Promise<string[]> {
  return (await transcriptOf(runId)).flatMap((m) => (m.role === "tool" ? [m.content] : []));
}

describe("a recorded approval applied under a newer deploy", { timeout: 30_000 }, () => {
  it("a removed tool: the run is given agent_changed, the tool never runs, a receipt says so", async () => {
    const { runId, stub } = await approvedUnderOldVersion((request) => {
      (request.data as Record<string, unknown>).tool = "refund_order_v0";
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const run = await waitForStatus(runId, ["done", "failed"]);
    expect(run.status).toBe("done");
    const results = await toolResults(runId);
    expect(results.join("\n")).toContain(
      "agent_changed: the tool refund_order_v0 no longer exists",
    );
    expect(results.join("\n")).not.toContain("Refunded $120");
    // Who decided stays; the answer is the refusal the run was given.
    expect(run.decisions).toHaveLength(1);
    expect(run.decisions[0]).toMatchObject({ decision: "approve", answer: { ok: false } });
    expect(run.receiptCount).toBe(2);
    const [approved, declined] = await receiptsOf(runId);
    expect(approved).toMatchObject({ seq: 1, decision: "approved", channel: "webhook" });
    expect(declined).toMatchObject({
      seq: 2,
      decision: "declined",
      channel: "version",
      agentVersion: "v-old",
      requestId: approved?.requestId,
    });
    expect(declined?.reason).toMatch(/^agent_changed: the tool refund_order_v0 no longer exists/);
    expect(declined?.decidedBy).toBeUndefined();
  });

  it("a schema that rejects the stored arguments: declined, the tool never runs", async () => {
    const { runId, stub } = await approvedUnderOldVersion((request) => {
      (request.data as Record<string, unknown>).args = { orderId: "42", amount: -5 };
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await waitForStatus(runId, ["done", "failed"])).status).toBe("done");
    const results = (await toolResults(runId)).join("\n");
    expect(results).toContain(
      "agent_changed: the input schema of refund_order rejects the arguments",
    );
    expect(results).not.toContain("Refunded");
    const receipts = await receiptsOf(runId);
    expect(receipts.map((r) => [r.decision, r.channel])).toEqual([
      ["approved", "webhook"],
      ["declined", "version"],
    ]);
  });

  it("a compatible change: the approval applies as recorded, one receipt", async () => {
    const { runId, stub } = await approvedUnderOldVersion();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await waitForStatus(runId, ["done"])).text).toBe("Done: Refunded $120 on order 42");
    expect((await getRun(runId)).receiptCount).toBe(1);
  });

  it("a decision recorded under the deploy now running is not checked again (it was, when it arrived)", async () => {
    // The stored request names a tool that is gone: checked again, it would be declined.
    const { runId, stub } = await approvedUnderOldVersion(
      (request) => {
        (request.data as Record<string, unknown>).tool = "refund_order_v0";
      },
      await deployedVersion(),
    );
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await waitForStatus(runId, ["done"])).text).toBe("Done: Refunded $120 on order 42");
    expect((await getRun(runId)).receiptCount).toBe(1);
  });

  it("a decision arriving is stored with the version it was checked under", async () => {
    const { runId, threadId, request, stub } = await startPending(REFUND);
    expect(
      await stub.decide({ runId, requestId: request.id, decision: "approve", channel: "webhook" }),
    ).toMatchObject({ ok: true });
    const [row] = await sqlIn(threadId, "SELECT agent_version FROM decisions");
    expect(row?.agent_version).toBe(await deployedVersion());
  });

  it("a migration: the run is given the migrated arguments, a receipt carries their hash, and the tool runs with them", async () => {
    const { runId, threadId, requestId, stub } = await approvedUnderOldVersion();
    const migrating = {
      ...supportAgent,
      onVersionChange: ({ args }: { args: Record<string, unknown> }) => ({
        args: { ...args, amount: 100 },
      }),
    };
    const answer = await inThread(threadId, async (instance, state) => {
      const run = instance.store.requireRun(runId);
      const request = run.pending as Request;
      const receipts = new ThreadReceipts(
        createLazySql(state.storage.sql, { migrate, hasSchema }),
        threadId,
      );
      return answerUnderCurrentVersion(
        {
          store: instance.store,
          env: {},
          now: () => Date.now(),
          transaction: (fn) => state.storage.transactionSync(fn),
          appendReceipt: (draft, at) => receipts.append(draft, at),
        },
        {
          run,
          agent: migrating,
          request,
          decision: instance.store.decision(requestId)!,
          tools: await agentTools(migrating, {}),
        },
      );
    });
    const migrated = { orderId: "42", amount: 100 };
    expect(answer).toEqual({
      answer: answerOutput(requestId, { args: migrated, argsMigrated: true }),
    });
    // The deployed agent continues (its schema accepts the migrated arguments): they are what runs.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await waitForStatus(runId, ["done"])).text).toBe(
      `Done, with the arguments migrated to the tool's current version (${JSON.stringify(migrated)}): Refunded $100 on order 42`,
    );
    // The model is told the migration changed them: nobody edited them (issue 39 item 6b).
    expect(await toolResults(runId)).toEqual([
      `the arguments were migrated to the tool's current version: ${JSON.stringify(migrated)}\nRefunded $100 on order 42`,
    ]);
    const receipts = await receiptsOf(runId);
    expect(receipts.map((r) => [r.decision, r.channel])).toEqual([
      ["approved", "webhook"],
      ["approved", "version"],
    ]);
    expect(receipts[1]?.argsHash).toBe(argsHash(migrated));
    expect(receipts[0]?.argsHash).toBe(argsHash({ orderId: "42", amount: 120 }));
  });
});
