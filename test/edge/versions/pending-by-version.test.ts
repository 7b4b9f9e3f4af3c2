/**
 * Issue 30: `pendingByVersion` in `GET /v1/agents`, counted by the receipts store from what each
 * thread sends after its deliveries (never by reading the threads): a run that suspends counts
 * under its version, a decided one stops counting, and a run suspended under an older deploy
 * counts under that one.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, signedDecision, waitForStatus } from "../../helpers/edge";
import { sqlIn, startPending, until } from "../../helpers/durable";

interface Listed {
  name: string;
  version: string;
  pendingByVersion: Record<string, number>;
}

async function support(): Promise<Listed> {
  const response = await api("/v1/agents");
  expect(response.status).toBe(200);
  const { agents } = await response.json<{ agents: Listed[] }>();
  const agent = agents.find((a) => a.name === "support");
  if (!agent) {
    throw new Error("no support agent");
  }
  return agent;
}

const count = async (version?: string) => {
  const agent = await support();
  return agent.pendingByVersion[version ?? agent.version] ?? 0;
};

describe("pendingByVersion", { timeout: 30_000 }, () => {
  it("counts a suspended run under its version until it is decided", async () => {
    const before = await count();
    const { runId, request } = await startPending("Refund order 42 for $120");
    await until(async () => (await count()) === before + 1, "the suspended run counted");
    const decided = await signedDecision({ runId, requestId: request.id, decision: "approve" });
    expect(decided.status).toBe(202);
    await waitForStatus(runId, ["done"]);
    await until(async () => (await count()) === before, "the finished run no longer counted");
  });

  it("counts a run suspended under an older deploy under that version", async () => {
    const { threadId, stub } = await startPending("Refund order 42 for $120");
    const current = await count();
    await until(async () => (await count()) === current && current > 0, "counted once");
    await sqlIn(threadId, "UPDATE runs SET agent_version = 'v-old'");
    await runDurableObjectAlarm(stub); // a delivery round: the thread tells the store what changed
    await until(async () => (await count("v-old")) === 1, "counted under v-old");
    expect(await count()).toBe(current - 1);
    expect(Object.keys((await support()).pendingByVersion)).toContain("v-old");
  });
});
