// Cedar as a policy (issue 43 item 3), evaluated with @cedar-policy/cedar-wasm (its Node
// build here; test/dev/policy-cedar.test.mjs runs the worker's build under wrangler dev):
// forbid → deny with its @reason, permit → allow, @ask on a permit → ask, a syntax error →
// ConfigError naming the line. The policies are the worked example of docs/policy.md.
import { readFileSync } from "node:fs";
import * as cedar from "@cedar-policy/cedar-wasm/nodejs";
import { describe, expect, it } from "vitest";
import { accessEvaluation } from "../../src/core/policy/evaluation";
import { cedarPolicyWith } from "../../src/edge/policy/cedar/policy";
import { ConfigError } from "../../src/edge/config-error";
import { checkAgentPolicies } from "../../src/edge/policy/check";
import { parseApproverDirectory } from "../../src/edge/approvals/groups";
import { defineAgent } from "../../src/edge/agent";

const example = readFileSync(
  new URL("../../examples/policy/refunds.cedar", import.meta.url),
  "utf8",
);
const policy = cedarPolicyWith(() => cedar, { policies: { "refunds.cedar": example } });
const call = (tool: string, args: Record<string, unknown>) =>
  accessEvaluation({
    agent: "support",
    tool,
    args,
    requestedBy: "alice@example.com",
    context: { runId: "run_1", threadId: "th_1", agentVersion: "v1" },
  });
const FRIDAY = new Date("2026-12-04T12:00:00Z");
const MONDAY = new Date("2026-12-07T12:00:00Z");

describe("cedarPolicy", () => {
  it("allows what a permit allows", async () => {
    expect(await policy.evaluate(call("refund_order", { orderId: "1", amount: 200 }))).toEqual({
      decision: "allow",
    });
    expect(await policy.evaluate(call("lookup_order", { orderId: "1" }))).toEqual({
      decision: "allow",
    });
  });

  it("asks two of finance for a refund over $1,000 (an @ask on a permit)", async () => {
    expect(await policy.evaluate(call("refund_order", { orderId: "1", amount: 1500 }))).toEqual({
      decision: "ask",
      ask: { groups: ["finance"], quorum: 2, editable: ["amount"] },
    });
    // Non-integer amounts are decimals: the comparison with a Long errors, the ask is skipped
    // (Cedar ignores a policy that errors), so write decimal policies for cents.
    expect((await policy.evaluate(call("refund_order", { amount: 1500.5 }))).decision).toBe(
      "allow",
    );
  });

  it("forbids deletes on Fridays, with the policy's reason", async () => {
    expect(await policy.evaluate(call("delete_account", {}), { at: FRIDAY })).toEqual({
      decision: "deny",
      reason: "deletes are forbidden on Fridays",
    });
    expect(await policy.evaluate(call("delete_account", {}), { at: MONDAY })).toEqual({
      decision: "allow",
    });
  });

  it("denies what no policy permits (Cedar's default)", async () => {
    const strict = cedarPolicyWith(() => cedar, {
      policies: 'permit (principal, action, resource == Tool::"lookup_order");',
    });
    expect(await strict.evaluate(call("refund_order", { amount: 1 }))).toEqual({
      decision: "deny",
      reason: "no Cedar policy permits this call",
    });
  });

  it("names the groups it may ask, and the line of a syntax error", async () => {
    expect(await policy.check()).toEqual({ groups: ["finance"] });
    expect(policy.id).toMatch(/^cedar:[0-9a-f]{8}$/);
    const broken = cedarPolicyWith(() => cedar, {
      policies: {
        "broken.cedar":
          "permit (principal, action, resource);\n\nforbid (principal action, resource);",
      },
    });
    await expect(broken.check()).rejects.toThrow(ConfigError);
    await expect(broken.check()).rejects.toThrow(/^Cedar policy broken\.cedar line 3: /);
    const badQuorum = cedarPolicyWith(() => cedar, {
      policies: '@ask("finance") @quorum("two") permit (principal, action, resource);',
    });
    await expect(badQuorum.check()).rejects.toThrow(/@quorum must be 1 to 100/);
  });
});

describe("an agent's Cedar policy before the edge serves (configCheck)", () => {
  const directory = parseApproverDirectory({
    APPROVER_GROUPS: JSON.stringify({ finance: ["ann@example.com", "bob@example.com"] }),
  });
  const agent = (policies: string) =>
    defineAgent({
      name: "support",
      description: "d",
      systemPrompt: "s",
      tools: [],
      policy: cedarPolicyWith(() => cedar, { policies }),
    });

  it("passes the worked example", async () => {
    await expect(checkAgentPolicies(agent(example), directory)).resolves.toBeUndefined();
  });

  it("is a config_error naming the line of a syntax error, or a group nobody defined", async () => {
    await expect(
      checkAgentPolicies(agent("permit (principal, action, resource);\nforbid (;"), directory),
    ).rejects.toThrow(/^agent support: policy: Cedar policy policies\.cedar line 2: /);
    await expect(
      checkAgentPolicies(agent('@ask("legal") permit (principal, action, resource);'), directory),
    ).rejects.toThrow("agent support: policy cedar:" /* id */);
    await expect(
      checkAgentPolicies(agent('@ask("legal") permit (principal, action, resource);'), directory),
    ).rejects.toThrow(/asks group "legal", which is not defined/);
  });
});
