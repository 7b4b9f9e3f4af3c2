// A fake AuthZEN PDP on 127.0.0.1 (issue 43): the client really talks HTTP to it, and a PDP
// that is down, slow or answers an unknown shape leaves the in-code rule in force, recorded.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, pendingOf, requireApproval } from "../../src/core";
import { authzenPolicy } from "../../src/core/policy/authzen";
import { withPolicy } from "../../src/core/policy/policy-tool";

let server: Server;
let base: string;
const bodies: unknown[] = [];
let answer: (body: { resource: { properties: { args: { amount: number } } } }) => unknown;
let delayMs = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      const body = JSON.parse(text);
      bodies.push({ path: req.url, auth: req.headers.authorization, body });
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(answer(body)));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const refund = requireApproval<{ amount: number }>(
  defineTool<{ amount: number }>({
    name: "refund_order",
    description: "Refund",
    inputSchema: z.object({ amount: z.number() }),
    run: ({ amount }) => `Refunded $${amount}`,
  }),
  { when: (a) => a.amount > 50, prompt: (a) => `Refund $${a.amount}?` },
);
const context = { runId: "run_1", threadId: "th_1", agentVersion: "v1" };

describe("an AuthZEN PDP on 127.0.0.1", () => {
  it("denies over the limit and asks two of finance below it", async () => {
    answer = (body) =>
      body.resource.properties.args.amount > 5000
        ? { decision: false, context: { reason: "over limit" } }
        : { decision: true, context: { ask: { groups: ["finance"], quorum: 2 } } };
    delayMs = 0;
    const tool = withPolicy(refund, {
      agent: "support",
      context,
      policy: authzenPolicy({ url: base, token: "t0ken" }),
    });
    const denied = await tool.execute({ amount: 6000 }, { callId: "c1" });
    expect(denied.metadata?.reason).toBe("policy: over limit");
    const asked = pendingOf(await tool.execute({ amount: 100 }, { callId: "c2" }));
    expect(asked?.data?.approvers).toEqual({ group: "finance", quorum: 2 });
    expect(bodies[0]).toMatchObject({
      path: "/access/v1/evaluation",
      auth: "Bearer t0ken",
      body: { action: { name: "call_tool" }, resource: { type: "tool", id: "refund_order" } },
    });
  });

  it("falls back (recorded) when the PDP is slow, down or answers an unknown shape", async () => {
    const outcomes: string[] = [];
    const run = async (policyUrl: string) => {
      const tool = withPolicy(refund, {
        agent: "support",
        context,
        policy: authzenPolicy({ url: policyUrl, timeoutMs: 200 }),
        onTrouble: (t) => outcomes.push(t.type === "fallback" ? t.error : t.type),
      });
      return pendingOf(await tool.execute({ amount: 100 }, { callId: "c3" }));
    };
    answer = () => ({ allow: true });
    expect((await run(base))?.data?.policy).toMatchObject({ source: "fallback", id: "in-code" });
    delayMs = 1000;
    answer = () => ({ decision: true });
    expect((await run(base))?.data?.policy).toMatchObject({ source: "fallback" });
    delayMs = 0;
    const down = await new Promise<string>((resolve) => {
      const s = createServer();
      s.listen(0, "127.0.0.1", () => {
        const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
        s.close(() => resolve(url));
      });
    });
    expect((await run(down))?.data?.policy).toMatchObject({ source: "fallback" });
    expect(outcomes[0]).toMatch(/no boolean "decision"/);
    expect(outcomes[1]).toMatch(/did not answer within 200 ms/);
    expect(outcomes[2]).toMatch(/could not be reached/);
  });
});
