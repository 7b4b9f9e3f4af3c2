/**
 * Issue 30: a decision for a request suspended under another agent version. The run's stored
 * version is rewritten to an older one (and, for the declines, its stored request to what an
 * older deploy would have asked), as if the worker had been redeployed while it waited.
 */
import { describe, expect, it } from "vitest";
import { getRun, signedDecision, waitForStatus } from "../../helpers/edge";
import { sqlIn, startPending } from "../../helpers/durable";
import { receiptsOf } from "../../helpers/receipts";

const REFUND = "Refund order 42 for $120"; // one approval, no rules

/** Suspended "under v-old": the run's version, and its pending request changed by `edit`. */
async function suspendedUnderOldVersion(
  edit: (request: Record<string, unknown>) => void = () => {},
) {
  const { runId, threadId, request } = await startPending(REFUND);
  const [row] = await sqlIn(threadId, "SELECT pending FROM runs WHERE run_id = ?", runId);
  const stored = JSON.parse(String(row?.pending)) as Record<string, unknown>;
  edit(stored);
  await sqlIn(
    threadId,
    "UPDATE runs SET agent_version = 'v-old', pending = ? WHERE run_id = ?",
    JSON.stringify(stored),
    runId,
  );
  return { runId, threadId, requestId: request.id };
}

const approve = (runId: string, requestId: string) =>
  signedDecision({ runId, requestId, decision: "approve" });

describe("a decision meets a changed agent", { timeout: 30_000 }, () => {
  it("continue: the tool exists and its schema accepts the arguments, so the decision applies; the receipt names the old version", async () => {
    const { runId } = await suspendedUnderOldVersion();
    const before = await getRun(runId);
    expect(before.agentVersion).toBe("v-old");
    const response = await approve(runId, before.pending?.id ?? "");
    expect(response.status).toBe(202);
    expect((await waitForStatus(runId, ["done"])).text).toBe("Done: Refunded $120 on order 42");
    const [payload] = await receiptsOf(runId);
    expect(payload).toMatchObject({ agentVersion: "v-old", decision: "approved" });
  });

  it("a removed tool: the request is declined with reason agent_changed, recorded, and the run goes on; the approver is told (409)", async () => {
    const { runId, requestId } = await suspendedUnderOldVersion((request) => {
      (request.data as Record<string, unknown>).tool = "refund_order_v0";
    });
    const response = await approve(runId, requestId);
    expect(response.status).toBe(409);
    const body = await response.json<{
      error: { code: string; message: string };
      decision: { decision: string; channel: string; reason?: string };
    }>();
    expect(body.error.code).toBe("agent_changed");
    expect(body.error.message).toBe(
      `agent_changed: the tool refund_order_v0 no longer exists: request ${requestId} is declined with this reason instead (recorded), and the run goes on without it`,
    );
    // The run is not left pending until it expires: the model hears the reason and finishes.
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe(
      "Understood — I did not refund $120 on order 42 because it was declined (agent_changed: the tool refund_order_v0 no longer exists).",
    );
    expect(done.decisions).toEqual([
      expect.objectContaining({
        requestId,
        decision: "decline",
        channel: "version",
        decidedBy: null,
      }),
    ]);
    const [payload] = await receiptsOf(runId);
    expect(payload).toMatchObject({
      decision: "declined",
      channel: "version",
      reason: "agent_changed: the tool refund_order_v0 no longer exists",
    });
    // Asked again, it is no longer pending: declined once.
    expect((await approve(runId, requestId)).status).toBe(409);
  });

  it("a schema that rejects the stored arguments: declined with reason agent_changed, recorded", async () => {
    const { runId, requestId } = await suspendedUnderOldVersion((request) => {
      (request.data as Record<string, unknown>).args = { orderId: "42", amount: -5 };
    });
    const response = await approve(runId, requestId);
    expect(response.status).toBe(409);
    const body = await response.json<{ error: { code: string; message: string } }>();
    expect(body.error).toMatchObject({ code: "agent_changed" });
    expect(body.error.message).toContain("schema");
    expect(body.error.message).toContain("is declined with this reason instead (recorded)");
    const done = await waitForStatus(runId, ["done"]);
    expect(done).toMatchObject({ decisions: [expect.objectContaining({ channel: "version" })] });
    expect(done.receiptCount).toBe(1);
  });

  it("a decline is never refused for a version change: refusing lets no tool run", async () => {
    const { runId, requestId } = await suspendedUnderOldVersion((request) => {
      (request.data as Record<string, unknown>).tool = "refund_order_v0";
    });
    const response = await signedDecision({ runId, requestId, decision: "decline" });
    expect(response.status).toBe(202);
  });
});
