/**
 * Issue 39 item 6c: a sub-agent's answer handed down in a normal run is announced as the hand-off
 * it is (`resumed { requestId, handle }`), never as crash recovery: `resumed { reason:
 * "recovered from the last checkpoint" }` is for a real recovery only (test/edge/durable.test.ts,
 * test/edge/watchdog.test.ts).
 */
import { describe, expect, it } from "vitest";
import { signedDecision, startRun, waitForStatus } from "../helpers/edge";
import { eventsOf } from "../helpers/durable";

describe("a sub-agent's decided request, no crash", () => {
  it("is announced once, with the handle that took it; nothing says recovered", async () => {
    const { runId } = await startRun({ agent: "coordinator", input: "Refund $120 on order 42" });
    const pending = await waitForStatus(runId, ["pending", "done", "failed"]);
    const request = pending.pending;
    expect(request?.data?.path).toEqual(["root", "coordinator.1", "refunds.1"]); // segments (issue 40)
    const decided = await signedDecision({
      runId,
      requestId: String(request?.id),
      decision: "approve",
    });
    expect(decided.status).toBe(202);
    expect((await waitForStatus(runId, ["done", "failed"])).status).toBe("done");
    const resumed = (await eventsOf(runId)).filter((e) => e.type === "resumed");
    expect(resumed.map((e) => e.data)).toEqual([
      { requestId: request?.id, handle: "root/coordinator.1/refunds.1" },
    ]);
  });
});
