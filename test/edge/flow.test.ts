import { describe, expect, it } from "vitest";
import { getRun, signedDecision, startRun, waitForStatus } from "../helpers/edge";

describe("a run that needs approval", () => {
  it("suspends, takes a signed decision, resumes through the queue and finishes", async () => {
    const started = await startRun({ agent: "support", input: "Please delete my account" });
    expect(started.status).toBe("running");
    const pending = await waitForStatus(started.runId, ["pending"]);
    expect(pending.pending?.kind).toBe("approval");
    expect(pending.pending?.prompt).toMatch(/Delete this account/);

    const response = await signedDecision({
      runId: started.runId,
      requestId: pending.pending!.id,
      decision: "decline",
      // delete_account has approver rules: a member of support-leads decides.
      decidedBy: "lead@example.com",
    });
    expect(response.status).toBe(202);
    const done = await waitForStatus(started.runId, ["done"]);
    expect(done.text).toMatch(/did not/i);
    expect(done.decisions).toHaveLength(1);
    expect(done.decisions[0]).toMatchObject({
      decision: "decline",
      channel: "webhook",
      answer: { ok: false, reason: "declined" },
    });
    const again = await getRun(started.runId, "?transcript=true");
    expect(again.transcript?.length).toBeGreaterThan(3);
  });
});
