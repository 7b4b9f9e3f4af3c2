/**
 * Issue 30: a migration function under approver rules, when the deciding votes arrive under the
 * new deploy. The deployed demo agent continues on a version change, so the migrating agent is
 * handed to the decision's version gate directly (durable/versions/decision-check.ts), and the
 * votes go through the ledger with the input the gate returned, as the object's `decide` does; the
 * alarm then applies the decision with the deployed agent. A $1,500 refund needs two of
 * finance; migrated to $1,400 it still does (the votes stand, the tool runs with $1,400); migrated
 * to $900 it would need one approval of anyone, which asks for nobody the stored rule does not
 * let decide: the stored four-eyes rule keeps governing it (a rule that asks for others is asked
 * again: ./reask.test.ts).
 */
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { argsHash } from "../../../src/core/approvers/args-hash";
import { settings } from "../../../src/edge/settings";
import { supportAgent } from "../../../src/edge/demo/agent";
import type { DecisionInput } from "../../../src/edge/protocol";
import type { EdgeEnv } from "../../../src/edge/settings";
import { recordDecisionInInbox } from "../../../durable/ledger/decisions";
import type { ThreadContext } from "../../../durable/thread/context";
import { versionGate } from "../../../durable/versions/decision-check";
import { waitForStatus } from "../../helpers/edge";
import { inThread, sqlIn, startPending } from "../../helpers/durable";
import { receiptsOf } from "../../helpers/receipts";

const migratingTo = (amount: number) => ({
  ...supportAgent,
  onVersionChange: ({ args }: { args: Record<string, unknown> }) => ({ args: { ...args, amount } }),
});

/** A four-eyes refund suspended "under v-old". */
async function fourEyesUnderOldVersion() {
  const started = await startPending("Refund order 42 for $1500");
  expect(started.request.data?.approvers).toMatchObject({ group: "finance", quorum: 2 });
  await sqlIn(started.threadId, "UPDATE runs SET agent_version = 'v-old'");
  return started;
}

/** One vote as the object's `decide` records it, with the migrating agent's version gate. */
function vote(threadId: string, agent: typeof supportAgent, input: DecisionInput) {
  return inThread(threadId, async (instance, state) => {
    const t = {
      store: instance.store,
      votes: instance.votes,
      agents: new Map([[agent.name, agent]]),
      env,
    } as unknown as ThreadContext;
    const gate = await versionGate(t, input);
    if ("refused" in gate) {
      return gate.refused;
    }
    if ("reask" in gate) {
      throw new Error(`asked again: ${gate.reask.reason}`);
    }
    if ("decline" in gate) {
      throw new Error(`declined: ${gate.decline.reason}`);
    }
    const deps = {
      store: instance.store,
      votes: instance.votes,
      outbox: instance.outbox,
      directory: settings(env as EdgeEnv).approvers(),
      // As durable/thread/decide.ts hands it on: the ledger puts migrated arguments on the answer.
      ...(gate.migrated === undefined ? {} : { migrated: gate.migrated }),
    };
    return state.storage.transactionSync(() => recordDecisionInInbox(deps, gate.input, Date.now()));
  });
}

describe("onVersionChange migrates under approver rules", { timeout: 30_000 }, () => {
  it("the same rule: the votes stand, the settling approval carries the migrated arguments, the tool runs with them", async () => {
    const { runId, threadId, request, stub } = await fourEyesUnderOldVersion();
    const agent = migratingTo(1400);
    const base = { runId, requestId: request.id, decision: "approve", channel: "webhook" } as const;
    expect(await vote(threadId, agent, { ...base, decidedBy: "ann@example.com" })).toMatchObject({
      ok: true,
      decision: null,
      votes: 1,
      needed: 2,
    });
    const settled = await vote(threadId, agent, { ...base, decidedBy: "bob@example.com" });
    const migrated = { orderId: "42", amount: 1400 };
    expect(settled).toMatchObject({
      ok: true,
      decision: { answer: { ok: true, data: { args: migrated } } },
    });
    await runDurableObjectAlarm(stub);
    expect((await waitForStatus(runId, ["done"])).text).toContain("Refunded $1400 on order 42");
    const receipts = await receiptsOf(runId);
    expect(receipts).toHaveLength(1);
    const receipt = receipts[0];
    expect(receipt).toMatchObject({
      decision: "approved",
      argsHash: argsHash(migrated),
      agentVersion: "v-old",
      rule: { group: "finance", quorum: 2 },
    });
    expect(receipt?.votes?.map((v) => v.decidedBy)).toEqual(["ann@example.com", "bob"]);
  });

  it("a rule that asks less: the stored four-eyes rule keeps governing, and the tool runs with $900", async () => {
    const { runId, threadId, request, stub } = await fourEyesUnderOldVersion();
    const agent = migratingTo(900);
    const base = { runId, requestId: request.id, decision: "approve", channel: "webhook" } as const;
    // One approval of anyone would do under the new rule; the stored rule asks for two of finance.
    expect(await vote(threadId, agent, { ...base, decidedBy: "ann@example.com" })).toMatchObject({
      ok: true,
      decision: null,
      votes: 1,
      needed: 2,
    });
    expect(await vote(threadId, agent, { ...base, decidedBy: "bob@example.com" })).toMatchObject({
      ok: true,
      decision: { answer: { ok: true, data: { args: { orderId: "42", amount: 900 } } } },
    });
    await runDurableObjectAlarm(stub);
    expect((await waitForStatus(runId, ["done"])).text).toContain("Refunded $900 on order 42");
  });
});
