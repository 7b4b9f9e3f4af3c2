// The one policy interface (issue 43, docs/policy.md): every call is an AuthZEN access
// evaluation; the in-code rule is the default policy, an external one only tightens it, and a
// policy that cannot answer leaves the in-code rule in force, recorded as "fallback".
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { answerDeclined, defineTool, pendingOf, requireApproval } from "../../../src/core";
import { withPolicy, type PolicyHost } from "../../../src/core/policy/policy-tool";
import type { AccessEvaluation, PolicyAnswer, ToolPolicy } from "../../../src/core/policy/types";

type RefundArgs = { orderId: string; amount: number };
const refund = requireApproval<RefundArgs>(
  defineTool<RefundArgs>({
    name: "refund_order",
    description: "Refund",
    inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
    run: ({ amount }) => `Refunded $${amount}`,
  }),
  {
    when: (a) => a.amount > 50,
    prompt: (a) => `Refund $${a.amount}?`,
    approvers: (a) => (a.amount > 1000 ? { group: "finance", quorum: 2 } : undefined),
    policy: (a, req) =>
      a.amount > 10_000 ? answerDeclined(req.id, "policy: refunds over $10,000") : undefined,
  },
);
const lookup = defineTool<{ orderId: string }>({
  name: "lookup_order",
  description: "Look up",
  inputSchema: z.object({ orderId: z.string() }),
  run: ({ orderId }) => `order ${orderId}`,
});

/** A policy answering with `answer(evaluation)`, remembering what it was asked. */
function fakePolicy(answer: (e: AccessEvaluation) => PolicyAnswer | Promise<PolicyAnswer>) {
  const asked: AccessEvaluation[] = [];
  const policy: ToolPolicy = {
    id: "authzen",
    version: "abcd1234",
    source: "authzen",
    evaluate: async (e) => {
      asked.push(e);
      return answer(e);
    },
  };
  return { policy, asked };
}

const context = { runId: "run_1", threadId: "th_1", agentVersion: "v1" };
const host = (extra: Partial<PolicyHost> = {}): PolicyHost => ({
  agent: "support",
  context,
  groupExists: (g) => g === "finance",
  ...extra,
});
const ctx = { callId: "call_1" };

describe("the in-code rule through the policy interface", () => {
  it("asks, allows and denies as requireApproval does, and says the code decided", async () => {
    const tool = withPolicy(refund, host());
    const asked = pendingOf(await tool.execute({ orderId: "1", amount: 2000 }, ctx));
    expect(asked?.data?.approvers).toEqual({ group: "finance", quorum: 2 });
    expect(asked?.data?.policy).toEqual({
      id: "in-code",
      version: "v1",
      decision: "ask",
      source: "code",
    });
    const small = await tool.execute({ orderId: "1", amount: 10 }, ctx);
    expect(small).toMatchObject({ output: "Refunded $10", isError: false });
    expect(small.metadata?.policy).toBeUndefined(); // nothing decided without a person worth a record
    const denied = await tool.execute({ orderId: "1", amount: 20_000 }, ctx);
    expect(denied.output).toBe("declined/expired: Refund $20000?");
    expect(denied.metadata?.reason).toBe("policy: refunds over $10,000");
  });

  it("evaluates each call as an AuthZEN access evaluation", async () => {
    const { policy, asked } = fakePolicy(() => ({ decision: "allow" }));
    await withPolicy(refund, host({ policy, requestedBy: "alice@example.com" })).execute(
      { orderId: "7", amount: 20 },
      ctx,
    );
    expect(asked[0]).toMatchObject({
      subject: { type: "user", id: "alice@example.com" },
      action: { name: "call_tool" },
      resource: {
        type: "tool",
        id: "refund_order",
        properties: { agent: "support", args: { orderId: "7", amount: 20 } },
      },
      context: { runId: "run_1", threadId: "th_1", agentVersion: "v1" },
    });
    expect(asked[0]?.resource.properties.argsHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await withPolicy(lookup, host({ policy })).execute({ orderId: "7" }, ctx);
    expect(asked[1]?.subject).toEqual({ type: "thread", id: "th_1" });
  });
});

describe("an external policy", () => {
  it("denies without a person, and the model hears its reason", async () => {
    const { policy } = fakePolicy((e) =>
      (e.resource.properties.args as RefundArgs).amount > 5000
        ? { decision: "deny", reason: "over limit" }
        : { decision: "allow" },
    );
    const result = await withPolicy(refund, host({ policy })).execute(
      { orderId: "1", amount: 6000 },
      ctx,
    );
    expect(result.output).toBe("declined/expired: Refund $6000?");
    expect(result.metadata?.reason).toBe("policy: over limit");
    const recorded = result.metadata?.policy as { request: { data: Record<string, unknown> } };
    expect(recorded.request.data.policy).toEqual({
      id: "authzen",
      version: "abcd1234",
      decision: "deny",
      source: "authzen",
    });
  });

  it("asks two of finance where the code asked anyone", async () => {
    const { policy } = fakePolicy(() => ({
      decision: "ask",
      ask: { groups: ["finance"], quorum: 2 },
    }));
    const request = pendingOf(
      await withPolicy(refund, host({ policy })).execute({ orderId: "1", amount: 100 }, ctx),
    );
    expect(request?.data?.approvers).toEqual({ group: "finance", quorum: 2 });
    expect(request?.data?.policy).toMatchObject({ decision: "ask", source: "authzen" });
  });

  it("asks about a tool the code has no rule for, and runs it once approved", async () => {
    const { policy } = fakePolicy(() => ({ decision: "ask", ask: { groups: ["finance"] } }));
    const tool = withPolicy(lookup, host({ policy }));
    const request = pendingOf(await tool.execute({ orderId: "9" }, ctx));
    expect(request).toMatchObject({
      id: "apr_call_1",
      kind: "approval",
      data: { tool: "lookup_order" },
    });
    const ran = await tool.execute(
      { orderId: "9" },
      { ...ctx, answer: { id: "apr_call_1", ok: true } },
    );
    expect(ran.output).toBe("order 9");
  });

  it("never loosens the in-code rule: an allow leaves its ask and its deny in force", async () => {
    const { policy } = fakePolicy(() => ({ decision: "allow" }));
    const tool = withPolicy(refund, host({ policy }));
    const asked = pendingOf(await tool.execute({ orderId: "1", amount: 2000 }, ctx));
    expect(asked?.data?.approvers).toEqual({ group: "finance", quorum: 2 });
    expect(asked?.data?.policy).toMatchObject({ id: "in-code", source: "code", decision: "ask" });
    const denied = await tool.execute({ orderId: "1", amount: 20_000 }, ctx);
    expect(denied.metadata?.reason).toBe("policy: refunds over $10,000");
    // An ask for one of finance keeps the code's quorum of two.
    const one = fakePolicy(() => ({ decision: "ask", ask: { groups: ["finance"], quorum: 1 } }));
    const kept = pendingOf(
      await withPolicy(refund, host({ policy: one.policy })).execute(
        { orderId: "1", amount: 2000 },
        ctx,
      ),
    );
    expect(kept?.data?.approvers).toEqual({ group: "finance", quorum: 2 });
  });

  it("records an allow without a person", async () => {
    const { policy } = fakePolicy(() => ({ decision: "allow" }));
    const result = await withPolicy(lookup, host({ policy })).execute({ orderId: "3" }, ctx);
    expect(result.output).toBe("order 3");
    expect(result.metadata?.policy).toMatchObject({
      answer: { id: "apr_call_1", ok: true },
      request: { data: { policy: { decision: "allow", source: "authzen" } } },
    });
  });

  it("falls back to the in-code rule when it cannot answer, and says so", async () => {
    const troubles: unknown[] = [];
    const { policy } = fakePolicy(() => {
      throw new Error("connection refused");
    });
    const tool = withPolicy(refund, host({ policy, onTrouble: (t) => troubles.push(t) }));
    const request = pendingOf(await tool.execute({ orderId: "1", amount: 100 }, ctx));
    expect(request?.data?.approvers).toBeUndefined();
    expect(request?.data?.policy).toEqual({
      id: "in-code",
      version: "v1",
      decision: "ask",
      source: "fallback",
    });
    expect(troubles).toEqual([
      {
        type: "fallback",
        policy: "authzen",
        error: "connection refused",
        tool: "refund_order",
        callId: "call_1",
      },
    ]);
  });

  it("refuses the call (config_error) when it asks a group nobody defined", async () => {
    const troubles: Array<{ type: string }> = [];
    const { policy } = fakePolicy(() => ({ decision: "ask", ask: { groups: ["legal"] } }));
    const result = await withPolicy(
      lookup,
      host({ policy, onTrouble: (t) => troubles.push(t) }),
    ).execute({ orderId: "1" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.metadata?.reason).toMatch(/^policy: config_error: authzen asked group "legal"/);
    expect(troubles.map((t) => t.type)).toEqual(["config_error"]);
  });
});

describe("shadow mode", () => {
  it("reports a disagreement with both answers and never decides", async () => {
    const found: unknown[] = [];
    const shadow = fakePolicy(() => ({ decision: "deny", reason: "no refunds on Fridays" }));
    const tool = withPolicy(
      refund,
      host({ shadow: { ...shadow.policy, id: "candidate" }, onShadow: (d) => found.push(d) }),
    );
    const result = await tool.execute({ orderId: "1", amount: 10 }, ctx);
    expect(result.output).toBe("Refunded $10"); // the live (in-code) decision stands
    expect(found).toEqual([
      {
        tool: "refund_order",
        callId: "call_1",
        live: { policy: "in-code", decision: "allow" },
        shadow: { policy: "candidate", decision: "deny", reason: "policy: no refunds on Fridays" },
      },
    ]);
    // Agreement is not reported.
    await withPolicy(
      refund,
      host({
        shadow: fakePolicy(() => ({ decision: "allow" })).policy,
        onShadow: (d) => found.push(d),
      }),
    ).execute({ orderId: "1", amount: 10 }, ctx);
    expect(found).toHaveLength(1);
  });

  it("a shadow that never answers is given up on after its bound", async () => {
    const found: unknown[] = [];
    const shadow: ToolPolicy = {
      id: "slow",
      version: "1",
      source: "authzen",
      evaluate: () => new Promise(() => {}),
    };
    const result = await withPolicy(
      refund,
      host({ shadow, shadowTimeoutMs: 20, onShadow: (d) => found.push(d) }),
    ).execute({ orderId: "1", amount: 10 }, ctx);
    expect(result.output).toBe("Refunded $10");
    expect(found).toEqual([]);
  });
});
