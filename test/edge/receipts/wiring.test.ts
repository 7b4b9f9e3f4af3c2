/**
 * Issue 30, wired: every applied decision leaves a signed receipt in its thread (same
 * transaction as the decision), readable per run, exported from the receipts store that the
 * thread's outbox feeds, and verifiable against the published JWKS by our verifier and by jose.
 */
import { compactVerify, createLocalJWKSet } from "jose";
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { api, BASE, getRun, signedDecision, waitForStatus, startRun } from "../../helpers/edge";
import { receiptPayload } from "../../helpers/receipts";
import { startPending, until } from "../../helpers/durable";
import { argsHash } from "../../../src/core/approvers/args-hash";
import { importJwks, verifyReceiptChain } from "../../../src/edge/receipts/verify";

const BIG_REFUND = "Please refund $2000 on order 42"; // finance, quorum 2, amount editable
const EDITED = { orderId: "42", amount: 1500 };

async function runReceipts(runId: string): Promise<string[]> {
  const response = await api(`/v1/runs/${runId}/receipts`);
  expect(response.status).toBe(200);
  return (await response.json<{ receipts: string[] }>()).receipts;
}

async function jwks() {
  const response = await SELF.fetch(`${BASE}/.well-known/receipt-keys.json`);
  expect(response.status).toBe(200);
  return response.json<{ keys: Array<Record<string, string>> }>();
}

/** Every line of the export, page after page. */
async function exported(): Promise<string[]> {
  const lines: string[] = [];
  let cursor: string | null = null;
  do {
    const response = await api(`/v1/receipts?limit=1000${cursor ? `&cursor=${cursor}` : ""}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/x-ndjson");
    const text = await response.text();
    lines.push(
      ...text
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string),
    );
    cursor = response.headers.get("next-cursor");
  } while (cursor);
  return lines;
}

describe("decision receipts, wired", { timeout: 30_000 }, () => {
  it("a quorum with an edit: one receipt whose argsHash is the edited arguments' and whose votes list both members", async () => {
    const { runId, request, run } = await startPending(BIG_REFUND);
    expect(run.agentVersion).toEqual(expect.any(String));
    expect(run.receiptCount).toBe(0);
    const edit = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "bob",
      args: EDITED,
    });
    expect(edit.status).toBe(202);
    expect((await getRun(runId)).receiptCount).toBe(0); // a vote that waits decides nothing
    const second = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "ann@example.com",
      argsHash: argsHash(EDITED),
    });
    expect(second.status).toBe(202);
    await waitForStatus(runId, ["done"]);

    const receipts = await runReceipts(runId);
    expect(receipts).toHaveLength(1);
    expect((await getRun(runId)).receiptCount).toBe(1);
    const receipt = receiptPayload(receipts[0] ?? "");
    expect(receipt).toMatchObject({
      v: 1,
      seq: 1,
      prev: null,
      runId,
      requestId: request.id,
      tool: "refund_order",
      argsHash: argsHash(EDITED),
      agentVersion: run.agentVersion,
      rule: { group: "finance", quorum: 2 },
      decision: "approved",
      channel: "webhook",
    });
    expect(receipt.argsHash).not.toBe(argsHash({ orderId: "42", amount: 2000 }));
    expect(receipt.votes?.map((v) => v.decidedBy).sort()).toEqual(["ann@example.com", "bob"]);

    // Our verifier and jose agree, against the JWKS the edge publishes.
    const keySet = await jwks();
    const verdict = await verifyReceiptChain(receipts, await importJwks(keySet), {
      expectCount: 1,
    });
    expect(verdict).toEqual({ ok: true, receipts: 1, threads: 1 });
    const { payload } = await compactVerify(receipts[0] ?? "", createLocalJWKSet(keySet as never), {
      algorithms: ["EdDSA"],
    });
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(receipt);

    // The outbox delivered it to the receipts store: the export has it, and verifies.
    const all = await until(async () => {
      const lines = await exported();
      return lines.includes(receipts[0] ?? "") && lines;
    }, "the receipt in the export");
    const exportVerdict = await verifyReceiptChain(all, await importJwks(keySet));
    expect(exportVerdict.ok).toBe(true);
  });

  it("a decline, then an approval in the same thread: two receipts chained by seq and prev", async () => {
    const { runId, request, threadId } = await startPending("Refund order 42 for $120");
    const declined = await signedDecision({
      runId,
      requestId: request.id,
      decision: "decline",
      reason: "not this one",
    });
    expect(declined.status).toBe(202);
    await waitForStatus(runId, ["done"]);
    const next = await startRun({ agent: "support", input: "Refund order 42 for $120", threadId });
    const pending = await waitForStatus(next.runId, ["pending"]);
    expect(
      (
        await signedDecision({
          runId: next.runId,
          requestId: pending.pending?.id,
          decision: "approve",
        })
      ).status,
    ).toBe(202);
    await waitForStatus(next.runId, ["done"]);

    const first = await runReceipts(runId);
    const second = await runReceipts(next.runId);
    expect(receiptPayload(first[0] ?? "")).toMatchObject({
      seq: 1,
      decision: "declined",
      reason: "not this one",
      argsHash: argsHash({ orderId: "42", amount: 120 }),
      rule: null,
    });
    expect(receiptPayload(second[0] ?? "")).toMatchObject({ seq: 2, decision: "approved" });
    const verdict = await verifyReceiptChain([...first, ...second], await importJwks(await jwks()));
    expect(verdict).toEqual({ ok: true, receipts: 2, threads: 1 });
  });

  it("a policy's decision leaves a receipt too", async () => {
    const started = await startRun({ agent: "support", input: "Please refund $20000 on order 42" });
    await waitForStatus(started.runId, ["done"]);
    const receipts = await runReceipts(started.runId);
    expect(receipts.map(receiptPayload)).toEqual([
      expect.objectContaining({
        decision: "declined",
        channel: "policy",
        decidedBy: "policy",
        tool: "refund_order",
        reason: expect.stringContaining("policy"),
      }),
    ]);
  });

  it("an unknown run is 404; a malformed query is 400", async () => {
    expect((await api("/v1/runs/th_nope.run_nope/receipts")).status).toBe(404);
    const bad = await api("/v1/receipts?limit=0");
    expect(bad.status).toBe(400);
    expect((await bad.json<{ error: { code: string } }>()).error.code).toBe("invalid_query");
  });
});
