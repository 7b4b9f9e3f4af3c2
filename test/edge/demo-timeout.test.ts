/**
 * DEMO_APPROVAL_TIMEOUT shortens the demo agent's 15-minute approval timeout, so an
 * expiry can be watched; an agent's approvalTimeout may be read from the environment.
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { createEdge } from "../../src/create-edge";
import { approvalTimeoutOf, defineAgent, DEFAULT_APPROVAL_TIMEOUT_MS } from "../../src/edge/agent";
import { demoApprovalTimeout, supportAgent } from "../../src/edge/demo/agent";
import type { RunView } from "../../src/edge/protocol";
import type { EdgeEnv } from "../../src/edge/settings";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { BASE } from "../helpers/edge";
import { threadStub } from "../helpers/durable";

describe("demoApprovalTimeout", () => {
  it("is 15 minutes unless DEMO_APPROVAL_TIMEOUT says otherwise", () => {
    expect(demoApprovalTimeout({})).toBe(15 * 60_000);
    expect(demoApprovalTimeout({ DEMO_APPROVAL_TIMEOUT: "" })).toBe(15 * 60_000);
    expect(demoApprovalTimeout({ DEMO_APPROVAL_TIMEOUT: "2m" })).toBe(120_000);
    expect(demoApprovalTimeout({ DEMO_APPROVAL_TIMEOUT: "90s" })).toBe(90_000);
    expect(demoApprovalTimeout({ DEMO_APPROVAL_TIMEOUT: "5000" })).toBe(5000);
    expect(() => demoApprovalTimeout({ DEMO_APPROVAL_TIMEOUT: "soon" })).toThrow(
      /DEMO_APPROVAL_TIMEOUT must be milliseconds or a string like "15m"/,
    );
  });

  it("approvalTimeoutOf takes a number, a function of env, or the 24 h default", () => {
    const base = { description: "d", systemPrompt: "s", tools: [] };
    expect(approvalTimeoutOf(defineAgent({ name: "a", ...base }), {})).toBe(
      DEFAULT_APPROVAL_TIMEOUT_MS,
    );
    expect(approvalTimeoutOf(defineAgent({ name: "b", ...base, approvalTimeout: 7 }), {})).toBe(7);
    const fromEnv = defineAgent<{ T?: string }>({
      name: "c",
      ...base,
      approvalTimeout: (e) => (e.T ? Number(e.T) : undefined),
    });
    expect(approvalTimeoutOf(fromEnv as never, { T: "42" })).toBe(42);
    expect(approvalTimeoutOf(fromEnv as never, {})).toBe(DEFAULT_APPROVAL_TIMEOUT_MS);
    expect(() => approvalTimeoutOf(fromEnv as never, { T: "-1" })).toThrow(
      /approvalTimeout must be a positive/,
    );
  });
});

describe("the demo agent with DEMO_APPROVAL_TIMEOUT=2m", () => {
  it("suspends with a request that expires two minutes after it was surfaced", async () => {
    // The application's Env names the demo's own variable (createEdge<Env>() is generic).
    const edge = createEdge<EdgeEnv & { DEMO_APPROVAL_TIMEOUT?: string }>({
      agents: [supportAgent],
    });
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const queue = { send: async () => {}, sendBatch: async () => {} };
    const { run, before, after } = await runInDurableObject(
      threadStub(threadId),
      async (_i, state) => {
        const object = new edge.ThreadObject(state, {
          ...env,
          RESUME_QUEUE: queue,
          NOTIFY_QUEUE: queue,
          DEMO_APPROVAL_TIMEOUT: "2m",
        });
        await object.start({
          runId,
          threadId,
          agent: "support",
          input: "Please refund $120 on order 42",
          publicUrl: BASE,
        });
        const before = Date.now();
        await object.drive(runId);
        const after = Date.now();
        const view = (await object.getRun(runId)) as RunView;
        await state.storage.deleteAlarm();
        return { run: view, before, after };
      },
    );
    expect(run.status).toBe("pending");
    const expires = Date.parse(run.expiresAt!);
    expect(expires).toBeGreaterThanOrEqual(before + 120_000);
    expect(expires).toBeLessThanOrEqual(after + 120_000);
  });
});
