// With no Slack variables, Slack is off: nothing is posted, nothing fails, and the
// interactions endpoint does not exist.
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { BASE, signedDecision, waitForStatus } from "../helpers/edge";
import { startPending } from "../helpers/durable";

describe("Slack switched off", () => {
  it("answers 404 on /slack/interactions, and runs suspend and finish as ever", async () => {
    const response = await SELF.fetch(`${BASE}/slack/interactions`, {
      method: "POST",
      body: "payload=%7B%7D",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: "slack_not_configured" } });

    const { runId, request } = await startPending("Refund order 7 for $80");
    expect(
      (
        await signedDecision({
          runId,
          requestId: request.id,
          decision: "approve",
          // Who decided is recorded; an $80 refund has no approver rules.
          decidedBy: "lead@example.com",
        })
      ).status,
    ).toBe(202);
    expect((await waitForStatus(runId, ["done"])).status).toBe("done");
  });
});
