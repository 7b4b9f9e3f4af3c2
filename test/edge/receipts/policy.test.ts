// Receipts say which policy decided (issue 43 item 6): `policy: { id, version, decision,
// fallback? }` drafted from the request's data.policy, with the call's args and requestedBy
// for policy-replay; verify-receipts checks their shape and that args match argsHash, and a
// chain that mixes old receipts (no policy) with new ones verifies.
import { describe, expect, it } from "vitest";
import { argsHash } from "../../../src/core/approvers/args-hash";
import { receiptJwks, receiptKeys } from "../../../src/edge/receipts/receipt-keys";
import { importJwks, verifyReceiptChain } from "../../../src/edge/receipts/verify";
import { ThreadReceipts } from "../../../durable/receipts/thread-receipts";
import { receiptDraft } from "../../../durable/receipts/draft";
import type { RunRow } from "../../../durable/storage/run-store";
import type { ReceiptDraft } from "../../../src/edge/receipts/receipt";
import { draft, SEED_A, withScratchSql } from "./helpers";

const args = { orderId: "42", amount: 120 };
const request = {
  id: "apr_call_1",
  kind: "approval",
  prompt: "Refund $120 on order 42?",
  data: {
    tool: "refund_order",
    args,
    policy: { id: "in-code", version: "v1", decision: "ask", source: "fallback" },
  },
};
const run = {
  threadId: "th_1",
  runId: "th_1.run_1",
  agent: "support",
  requestedBy: "alice@example.com",
} as RunRow;

describe("a receipt of a policy-decided request", () => {
  it("names the policy, marks a fallback, and carries the args and who asked", () => {
    const drafted = receiptDraft({
      run,
      request,
      decision: {
        requestId: request.id,
        runId: run.runId,
        decision: "approve",
        answer: { id: request.id, ok: true },
        channel: "webhook",
        decidedBy: "ann",
        webhookId: null,
        decidedAt: 0,
      },
      votes: [],
      agentVersion: "v1",
    });
    expect(drafted).toMatchObject({
      argsHash: argsHash(args),
      policy: { id: "in-code", version: "v1", decision: "ask", fallback: true },
      args,
      requestedBy: "alice@example.com",
      agent: "support",
    });
    const { data: _data, ...plain } = request;
    const old = receiptDraft({
      run,
      request: { ...plain, data: { tool: "refund_order", args } },
      decision: {
        requestId: request.id,
        runId: run.runId,
        decision: "decline",
        answer: { id: request.id, ok: false, reason: "no" },
        channel: "webhook",
        decidedBy: "ann",
        webhookId: null,
        decidedAt: 0,
      },
      votes: [],
      agentVersion: "v1",
    });
    expect(old).not.toHaveProperty("policy");
    expect(old).not.toHaveProperty("args");
  });
});

async function signed(drafts: ReceiptDraft[]): Promise<string[]> {
  const [key] = await receiptKeys(SEED_A);
  return withScratchSql(async (sql) => {
    const receipts = new ThreadReceipts(sql, "th_1");
    drafts.forEach((d, i) => {
      receipts.append(d, new Date(Date.UTC(2026, 6, 1, 10, 0, i)));
    });
    if (!key) {
      throw new Error("no key");
    }
    await receipts.signPending(key);
    return receipts.forRun(draft().runId);
  });
}

describe("verify-receipts on policy receipts", () => {
  const keys = async () => importJwks(receiptJwks(await receiptKeys(SEED_A)));
  const policyDraft = (overrides: Partial<ReceiptDraft> = {}) =>
    draft({
      requestId: "apr_call_2",
      argsHash: argsHash(args),
      policy: { id: "authzen", version: "abcd1234", decision: "deny" },
      args,
      requestedBy: "alice@example.com",
      decision: "declined",
      reason: "policy: over limit",
      channel: "policy",
      decidedBy: "policy",
      votes: undefined,
      rule: null,
      ...overrides,
    });

  it("verifies a chain mixing an old receipt and a policy one", async () => {
    const list = await signed([draft(), policyDraft()]);
    expect(await verifyReceiptChain(list, await keys())).toEqual({
      ok: true,
      receipts: 2,
      threads: 1,
    });
  });

  it("refuses args that are not the ones argsHash names, and a malformed policy", async () => {
    const edited = await signed([draft(), policyDraft({ args: { ...args, amount: 99 } })]);
    expect(await verifyReceiptChain(edited, await keys())).toMatchObject({
      ok: false,
      index: 1,
      problem: expect.stringContaining("args do not match argsHash"),
    });
    const bad = await signed([
      policyDraft({ policy: { id: "x", version: "1", decision: "maybe" as "ask" } }),
    ]);
    expect(await verifyReceiptChain(bad, await keys())).toMatchObject({
      ok: false,
      problem: expect.stringContaining("policy is not"),
    });
  });
});
