// The edge's MCP client against a 2026-07-28 server (the v2 SDK's, test/fixtures/modern-mcp.ts):
// the server's input_required becomes the run's durable request (kind input, data.schema),
// the server's requestState kept in it; an approver's answer (POST /v1/decisions) re-runs the
// call once with inputResponses and that state, byte for byte (the thread object evicted in
// between), and the run finishes.
import { describe, expect, it } from "vitest";
import { abortAllDurableObjects } from "cloudflare:test";
import { getRun, signedDecision, startRun, waitForStatus } from "../helpers/edge";
import { MODERN_AGENT, MODERN_STATE, modernCrmState } from "../fixtures/modern-mcp";

describe("MCP client, protocol 2026-07-28, at the edge", () => {
  it("input_required is a durable request; the answer retries the call with the state", async () => {
    const mark = modernCrmState.calls.length;
    const { runId } = await startRun({
      agent: MODERN_AGENT,
      input: "Please update my shipping address",
    });
    const pending = await waitForStatus(runId, ["pending"]);
    expect(pending.pending).toMatchObject({
      kind: "input",
      prompt: "What is the new address?",
      data: {
        schema: { properties: { address: { type: "string" } } },
        mcpInput: { key: "address", requestState: MODERN_STATE },
      },
    });
    // The object is evicted while the run waits: the state lives in the stored request.
    await abortAllDurableObjects();
    const decided = await signedDecision({
      runId,
      requestId: pending.pending!.id,
      decision: "approve",
      data: { address: "1 Main St" },
      decidedBy: "ann@example.com",
    });
    expect(decided.status).toBe(202);
    const done = await waitForStatus(runId, ["done", "failed", "incomplete"]);
    expect(done.status).toBe("done");
    expect(done.text).toContain("Address set to 1 Main St");
    const calls = modernCrmState.calls.slice(mark);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.requestState).toBeUndefined();
    expect(calls[1]).toMatchObject({
      requestState: MODERN_STATE,
      inputResponses: { address: { action: "accept", content: { address: "1 Main St" } } },
    });
    expect((await getRun(runId)).status).toBe("done");
  });
});
