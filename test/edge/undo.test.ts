/**
 * Undo (issue 44, docs/undo.md): POST /v1/runs/:runId/undo compensates a finished run through
 * the thread's Durable Object; the run ends `compensated`, its events and receipts say so, and
 * the bad inputs are refused with their codes.
 */
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { api, BASE, getRun, signedDecision, startRun, waitForStatus } from "../helpers/edge";
import { receiptsOf } from "../helpers/receipts";
import { importJwks, verifyReceiptChain } from "../../src/edge/receipts/verify";
import { ApiRequestError, createApiClient } from "../../src/api-client";
import { API_TOKEN } from "../helpers/edge";

function undo(runId: string, body: unknown = { reason: "wrong order" }, user = "ann@example.com") {
  return api(`/v1/runs/${runId}/undo`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: user ? { "x-toolnexus-user": user } : {},
  });
}

async function eventsOf(runId: string): Promise<Array<{ type: string; data: unknown }>> {
  const text = await (await api(`/v1/runs/${runId}/events`)).text();
  return text
    .split("\n\n")
    .map((block) => ({
      type: /^event: (.*)$/m.exec(block)?.[1] ?? "",
      data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null"),
    }))
    .filter((event) => event.type !== "");
}

/** An approved $80 refund on order 42, run to `done`. */
async function refundedRun(): Promise<string> {
  const { runId } = await startRun({ agent: "support", input: "refund $80 on order 42" });
  const pending = await waitForStatus(runId, ["pending"]);
  const decided = await signedDecision({
    runId,
    requestId: pending.pending!.id,
    decision: "approve",
    decidedBy: "ann@example.com",
  });
  expect(decided.status).toBe(202);
  await waitForStatus(runId, ["done"]);
  return runId;
}

describe("POST /v1/runs/:runId/undo", () => {
  it("compensates an approved refund: 202, the run reaches compensated, events and receipts say so; a repeat is 200", async () => {
    const runId = await refundedRun();
    const started = await undo(runId);
    expect(started.status).toBe(202);
    const body = await started.json<{
      runId: string;
      undo: { reason: string; requestedBy: string };
    }>();
    expect(body).toMatchObject({
      runId,
      undo: { reason: "wrong order", requestedBy: "ann@example.com" },
    });

    const run = await waitForStatus(runId, ["compensated"]);
    expect(run.undo).toMatchObject({
      state: "compensated",
      compensations: [
        {
          tool: "refund_order",
          status: "ran",
          output: "Reversed the refund of $80 on order 42",
        },
      ],
    });

    const events = await eventsOf(runId);
    const types = events.map((e) => e.type);
    expect(types.slice(types.indexOf("done"))).toEqual([
      "done",
      "undo",
      "compensating",
      "compensation",
      "compensated",
    ]);
    expect(events.at(-1)?.data).toMatchObject({
      reason: "wrong order",
      requestedBy: "ann@example.com",
      compensations: [{ tool: "refund_order", status: "ran" }],
    });

    const receipts = await receiptsOf(runId);
    expect(receipts.map((r) => r.decision)).toEqual(["approved", "compensated"]);
    const [approved, compensated] = receipts;
    expect(compensated).toMatchObject({
      requestId: approved?.requestId,
      tool: "refund_order",
      argsHash: approved?.argsHash,
      decidedBy: "ann@example.com",
      reason: "wrong order",
      channel: "undo",
      compensation: { status: "ran" },
    });
    const keys = await (await SELF.fetch(`${BASE}/.well-known/receipt-keys.json`)).json();
    const { receipts: signed } = await (await api(`/v1/runs/${runId}/receipts`)).json<{
      receipts: string[];
    }>();
    expect(await verifyReceiptChain(signed, await importJwks(keys))).toMatchObject({ ok: true });

    const again = await undo(runId, { reason: "again" }, "bob@example.com");
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({
      status: "compensated",
      undo: { reason: "wrong order", requestedBy: "ann@example.com", state: "compensated" },
    });
    expect((await getRun(runId)).undo?.compensations).toHaveLength(1);

    // The webhook takes `revoke`; with no undo window (no delay rule) there is nothing to revoke.
    const revoke = await signedDecision({
      runId,
      requestId: approved!.requestId,
      decision: "revoke",
      decidedBy: "ann@example.com",
    });
    expect(revoke.status).toBe(409);
    expect(await revoke.json()).toMatchObject({ error: { code: "request_not_pending" } });
  });

  it("the typed client undoes a run as a user, and says why it cannot", async () => {
    const client = createApiClient({
      baseUrl: BASE,
      token: API_TOKEN,
      fetch: (request: Request) => SELF.fetch(request),
    });
    const runId = await refundedRun();
    const started = await client.runs.undo(runId, { reason: "wrong order", user: "bob" });
    expect(started).toMatchObject({ runId, undo: { requestedBy: "bob", reason: "wrong order" } });
    await waitForStatus(runId, ["compensated"]);
    const { runId: lookup } = await startRun({ agent: "support", input: "where is order 42" });
    await waitForStatus(lookup, ["done"]);
    const refused = await client.runs.undo(lookup, { reason: "x", user: "bob" }).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiRequestError);
    expect(refused).toMatchObject({ status: 409, code: "nothing_to_undo" });
  });

  it("refuses what cannot be undone: a running or pending run, nothing to compensate, an unknown run, no user", async () => {
    const { runId: pendingRun } = await startRun({
      agent: "support",
      input: "refund $80 on order 7",
    });
    await waitForStatus(pendingRun, ["pending"]);
    const active = await undo(pendingRun);
    expect(active.status).toBe(409);
    expect(await active.json()).toMatchObject({ error: { code: "run_active" } });

    const { runId: lookup } = await startRun({ agent: "support", input: "where is order 42" });
    await waitForStatus(lookup, ["done"]);
    const nothing = await undo(lookup);
    expect(nothing.status).toBe(409);
    expect(await nothing.json()).toMatchObject({ error: { code: "nothing_to_undo" } });
    expect((await getRun(lookup)).status).toBe("done");

    const unknown = await undo("th_nope.run_nope");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "run_not_found" } });

    const anonymous = await undo(lookup, { reason: "x" }, "");
    expect(anonymous.status).toBe(400);
    const noReason = await undo(lookup, {});
    expect(noReason.status).toBe(400);
  });
});
