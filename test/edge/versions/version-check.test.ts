// onVersionChange (issue 30 item 2): every branch of the one decision the ledger and the
// driver share when a request suspended under one version meets another.
import { describe, expect, it } from "vitest";
import { answerDeclined } from "../../../src/core/answers";
import { argsHash } from "../../../src/core/approvers/args-hash";
import { defineTool } from "../../../src/core/tools/define";
import { requireApproval } from "../../../src/core/tools/approval";
import type { Rules } from "../../../src/core/approvers/rules";
import type { Request, Tool } from "../../../src/core/types";
import { defineAgent } from "../../../src/edge/agent";
import type { OnVersionChange, VersionChangeContext } from "../../../src/edge/versions/types";
import {
  checkVersionChange,
  needsOtherApprovers,
  nextRequestId,
  type VersionCheckInput,
} from "../../../src/edge/versions/version-check";

const schema = (amount: Record<string, unknown>) => ({
  type: "object",
  properties: { orderId: { type: "string" }, amount },
  required: ["orderId", "amount"],
  additionalProperties: false,
});

function refund(amount: Record<string, unknown> = { type: "number" }): Tool {
  return requireApproval(
    defineTool({
      name: "refund",
      description: "Refund",
      inputSchema: schema(amount),
      run: () => "ok",
    }),
    {
      approvers: (args: { amount: number }) =>
        args.amount > 1000 ? { group: "finance", quorum: 2 } : { group: "support" },
      policy: (args: { amount: number }, req) =>
        args.amount > 10_000 ? answerDeclined(req.id, "policy: amount over threshold") : undefined,
    },
  );
}

const request: Request = {
  id: "apr_call_1",
  kind: "approval",
  prompt: "Refund $50 on A1?",
  data: { tool: "refund", args: { orderId: "A1", amount: 50 }, approvers: { group: "support" } },
};

function input(
  onVersionChange: OnVersionChange | undefined,
  overrides: Partial<VersionCheckInput> = {},
): VersionCheckInput {
  const agent = defineAgent({
    name: "support",
    description: "d",
    systemPrompt: "p",
    tools: [],
    ...(onVersionChange ? { onVersionChange } : {}),
    mcp: { mcpServers: { crm: { url: "https://crm.example/mcp" } } },
  });
  return {
    agent,
    currentVersion: "B",
    tools: [refund()],
    request,
    requestVersion: "A",
    tool: "refund",
    args: { orderId: "A1", amount: 50 },
    ...overrides,
  };
}

describe("checkVersionChange", () => {
  it("is `same` when the version did not change, whatever the setting", async () => {
    for (const mode of ["continue", "decline", () => "decline" as const] as const) {
      expect(await checkVersionChange(input(mode, { requestVersion: "B" }))).toEqual({
        kind: "same",
      });
    }
  });

  describe('"continue" (the default)', () => {
    it("resumes with the stored arguments when the current schema accepts them", async () => {
      expect(await checkVersionChange(input(undefined))).toEqual({
        kind: "continue",
        from: "A",
        to: "B",
        args: { orderId: "A1", amount: 50 },
      });
    });

    it("declines when the tool was removed", async () => {
      const check = await checkVersionChange(input("continue", { tools: [] }));
      expect(check).toEqual({
        kind: "decline",
        from: "A",
        to: "B",
        reason: "agent_changed: the tool refund no longer exists",
      });
    });

    it("declines when the current schema rejects the arguments, naming the problem", async () => {
      const check = await checkVersionChange(
        input("continue", { tools: [refund({ type: "string" })] }),
      );
      expect(check.kind).toBe("decline");
      expect(check.kind === "decline" && check.reason).toMatch(
        /^agent_changed: the input schema of refund rejects the arguments: \/amount: .*string/,
      );
    });

    it("checks an approver's edited arguments, not the stored ones", async () => {
      const edited = { orderId: "A1", amount: "fifty" };
      expect((await checkVersionChange(input(undefined, { args: edited }))).kind).toBe("decline");
    });

    it("keeps the stored rules: a stricter rule of the new deploy is not applied here", async () => {
      // The deploy raised the rule for this amount; the request keeps the rule it was made under.
      const stricter = requireApproval(
        defineTool({
          name: "refund",
          description: "Refund",
          inputSchema: schema({ type: "number" }),
          run: () => "ok",
        }),
        { approvers: { group: "finance", quorum: 3 } },
      );
      expect((await checkVersionChange(input(undefined, { tools: [stricter] }))).kind).toBe(
        "continue",
      );
    });

    it("lets a tool of a still-configured MCP server through (its server checks the arguments)", async () => {
      const check = await checkVersionChange(input(undefined, { tool: "crm_find", tools: [] }));
      expect(check.kind).toBe("continue");
      const gone = await checkVersionChange(input(undefined, { tool: "billing_find", tools: [] }));
      expect(gone.kind).toBe("decline");
    });
  });

  describe('"decline"', () => {
    it("declines every request suspended under another version", async () => {
      const check = await checkVersionChange(input("decline"));
      expect(check).toEqual({
        kind: "decline",
        from: "A",
        to: "B",
        reason: "agent_changed: agent support is now version B, the request was made under A",
      });
    });

    it("treats a request from before versions were recorded like continue", async () => {
      expect((await checkVersionChange(input("decline", { requestVersion: null }))).kind).toBe(
        "continue",
      );
    });
  });

  describe("a function", () => {
    it("is told from, to, the request and the arguments", async () => {
      const seen: VersionChangeContext[] = [];
      await checkVersionChange(
        input((ctx) => {
          seen.push(ctx);
          return "continue";
        }),
      );
      expect(seen).toEqual([{ from: "A", to: "B", request, args: { orderId: "A1", amount: 50 } }]);
    });

    it('"continue" still needs the current schema to accept the arguments', async () => {
      const fine = await checkVersionChange(input(() => "continue"));
      expect(fine.kind).toBe("continue");
      const rejected = await checkVersionChange(
        input(() => "continue", { tools: [refund({ type: "string" })] }),
      );
      expect(rejected.kind).toBe("decline");
    });

    it('"decline" declines with agent_changed', async () => {
      const check = await checkVersionChange(input(async () => "decline" as const));
      expect(check.kind === "decline" && check.reason).toBe(
        "agent_changed: onVersionChange declined the request (version A → B)",
      );
    });

    it("{ args } migrates: re-validated, and the version of the new arguments returned", async () => {
      const cents = refund({ type: "integer" });
      const check = await checkVersionChange(
        input((ctx) => ({ args: { ...ctx.args, amount: (ctx.args.amount as number) * 100 } }), {
          tools: [cents],
          args: { orderId: "A1", amount: 0.5 },
        }),
      );
      expect(check).toEqual({
        kind: "migrate",
        from: "A",
        to: "B",
        args: { orderId: "A1", amount: 50 },
        argsHash: argsHash({ orderId: "A1", amount: 50 }),
      });
    });

    it("declines migrated arguments the schema rejects", async () => {
      const check = await checkVersionChange(input(() => ({ args: { orderId: 7, amount: 50 } })));
      expect(check.kind === "decline" && check.reason).toMatch(
        /^agent_changed: the input schema of refund rejects the migrated arguments: \/orderId/,
      );
    });

    it("declines migrated arguments the policy refuses", async () => {
      const check = await checkVersionChange(
        input(() => ({ args: { orderId: "A1", amount: 50_000 } })),
      );
      expect(check.kind === "decline" && check.reason).toBe(
        "agent_changed: the policy refuses the migrated arguments: policy: amount over threshold",
      );
    });

    it("asks again when the migrated arguments need other approvers: the gate's request, under the next id", async () => {
      const check = await checkVersionChange(
        input(() => ({ args: { orderId: "A1", amount: 5000 } })),
      );
      const args = { orderId: "A1", amount: 5000 };
      expect(check).toEqual({
        kind: "reask",
        from: "A",
        to: "B",
        args,
        argsHash: argsHash(args),
        rules: { group: "finance", quorum: 2 },
        request: {
          id: "apr_call_1_ask2",
          kind: "approval",
          prompt: `Allow refund with ${JSON.stringify(args)}?`,
          data: {
            tool: "refund",
            args,
            approvers: { group: "finance", quorum: 2 },
            supersedes: "apr_call_1",
          },
        },
        // What the superseded request is closed with.
        reason: "agent_changed: the migrated arguments of refund need other approvers",
      });
    });

    it("follows the rule for the migrated arguments: another group re-asks, the stored rule migrates", async () => {
      const finance = { group: "finance", quorum: 2 };
      const stored = { ...request, data: { ...request.data, approvers: finance } };
      const migrateTo = (amount: number) => () => ({ args: { orderId: "A1", amount } });
      // $700 needs one of support: another group than finance, so it is asked again.
      expect((await checkVersionChange(input(migrateTo(700), { request: stored }))).kind).toBe(
        "reask",
      );
      // $2000 needs two of finance, as stored: the same rule.
      expect((await checkVersionChange(input(migrateTo(2000), { request: stored }))).kind).toBe(
        "migrate",
      );
    });

    it("declines when it throws or answers something else", async () => {
      const threw = await checkVersionChange(
        input(() => {
          throw new Error("no mapping for v1 refunds");
        }),
      );
      expect(threw.kind === "decline" && threw.reason).toBe(
        "agent_changed: onVersionChange failed: no mapping for v1 refunds",
      );
      const odd = await checkVersionChange(input(() => ({ args: [1] }) as never));
      expect(odd.kind === "decline" && odd.reason).toMatch(
        /onVersionChange returned \{"args":\[1\]\}/,
      );
    });

    it("cannot save a removed tool", async () => {
      let asked = false;
      const check = await checkVersionChange(
        input(
          () => {
            asked = true;
            return "continue";
          },
          { tools: [] },
        ),
      );
      expect(check.kind).toBe("decline");
      expect(asked).toBe(false);
    });
  });
});

describe("needsOtherApprovers: whether the rule for migrated arguments asks for someone the stored rule does not", () => {
  const finance = { group: "finance", quorum: 2 };
  it("a rule where anyone could decide, another group or anyOf, a higher quorum, another escalation", () => {
    expect(needsOtherApprovers(undefined, { group: "finance" })).toBe(true);
    expect(needsOtherApprovers(finance, { group: "support", quorum: 2 })).toBe(true);
    expect(needsOtherApprovers(finance, { ...finance, anyOf: ["cfo@example.com"] })).toBe(true);
    expect(needsOtherApprovers(finance, { ...finance, quorum: 3 })).toBe(true);
    const escalating: Rules = { ...finance, escalate: { after: "1h", to: "managers" } };
    expect(
      needsOtherApprovers(escalating, { ...finance, escalate: { after: "1h", to: "cfo" } }),
    ).toBe(true);
    expect(needsOtherApprovers(escalating, finance)).toBe(true);
  });

  it("not a rule that asks less or the same people differently: no rule, a lower quorum, other edits, reminders, a new escalation", () => {
    expect(needsOtherApprovers(finance, undefined)).toBe(false);
    expect(needsOtherApprovers(undefined, undefined)).toBe(false);
    expect(needsOtherApprovers(finance, { group: "finance" })).toBe(false);
    expect(needsOtherApprovers(finance, { ...finance, editable: true, remindEvery: "1h" })).toBe(
      false,
    );
    expect(
      needsOtherApprovers(finance, { ...finance, escalate: { after: "1h", to: "managers" } }),
    ).toBe(false);
    expect(
      needsOtherApprovers({ anyOf: ["b", "a"], quorum: 2 }, { anyOf: ["a", "b"], quorum: 1 }),
    ).toBe(false);
  });
});

describe("nextRequestId", () => {
  it("numbers the requests asked on one call, never with a reminder's _r suffix", () => {
    expect(nextRequestId("apr_call_1")).toBe("apr_call_1_ask2");
    expect(nextRequestId("apr_call_1_ask2")).toBe("apr_call_1_ask3");
    expect(nextRequestId("apr_call_1_ask9")).toBe("apr_call_1_ask10");
  });
});
