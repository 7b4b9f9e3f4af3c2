// onVersionChange (issue 30 item 2): every branch of the one decision the ledger and the
// driver share when a request suspended under one version meets another.
import { describe, expect, it } from "vitest";
import { answerDeclined } from "../../../src/core/answers";
import { argsHash } from "../../../src/core/approvers/args-hash";
import { defineTool } from "../../../src/core/tools/define";
import { requireApproval } from "../../../src/core/tools/approval";
import type { Request, Tool } from "../../../src/core/types";
import { defineAgent } from "../../../src/edge/agent";
import type { OnVersionChange, VersionChangeContext } from "../../../src/edge/versions/types";
import {
  checkVersionChange,
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

    it("asks again when the migrated arguments need other approvers", async () => {
      const check = await checkVersionChange(
        input(() => ({ args: { orderId: "A1", amount: 5000 } })),
      );
      expect(check).toEqual({
        kind: "reask",
        from: "A",
        to: "B",
        args: { orderId: "A1", amount: 5000 },
        argsHash: argsHash({ orderId: "A1", amount: 5000 }),
        rules: { group: "finance", quorum: 2 },
        // What its callers refuse it with until a re-ask is built.
        reason: expect.stringMatching(
          /^agent_changed: the migrated arguments of \w+ need other approvers$/,
        ),
      });
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
