// Agent versions (issue 30 item 1): a hash over what changes behaviour, stable across key
// order, blind to remote tools' schemas but not to the servers an agent is configured with.
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { defineAgent, type AgentDefinition } from "../../../src/edge/agent";
import { defineTool } from "../../../src/core/tools/define";
import { requireApproval } from "../../../src/core/tools/approval";
import type { Tool } from "../../../src/core/types";
import { agentVersion, versionInputs } from "../../../src/edge/versions/agent-version";

const lookup = (schema: Record<string, unknown>) =>
  defineTool({
    name: "lookup",
    description: "Find an order",
    inputSchema: schema,
    run: () => "ok",
  });

const orderSchema = {
  type: "object",
  properties: { orderId: { type: "string" }, verbose: { type: "boolean" } },
  required: ["orderId"],
};

function agent(overrides: Partial<AgentDefinition> = {}): AgentDefinition {
  return defineAgent({
    name: "support",
    description: "Order support",
    systemPrompt: "You help with orders.",
    tools: [lookup(orderSchema)],
    ...overrides,
  });
}

describe("agentVersion", () => {
  it("is a 43-character base64url hash, the same for an equal definition", async () => {
    const a = await agentVersion(agent(), {});
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await agentVersion(agent(), {})).toBe(a);
  });

  it("does not change when only the order of keys changes", async () => {
    const reordered = {
      required: ["orderId"],
      properties: { verbose: { type: "boolean" }, orderId: { type: "string" } },
      type: "object",
    };
    expect(await agentVersion(agent({ tools: [lookup(reordered)] }), {})).toBe(
      await agentVersion(agent(), {}),
    );
  });

  it("changes with the prompt, the model, max turns, a schema, a description or a rule", async () => {
    const base = await agentVersion(agent(), {});
    const refund = defineTool({
      name: "refund",
      description: "Refund",
      inputSchema: z.object({ amount: z.number() }),
      run: () => "done",
    });
    const variants: AgentDefinition[] = [
      agent({ systemPrompt: "You help with orders. Be brief." }),
      agent({ model: "gpt-x" }),
      agent({ maxTurns: 3 }),
      agent({
        tools: [lookup({ ...orderSchema, properties: { orderId: { type: "number" } } })],
      }),
      agent({
        tools: [{ ...lookup(orderSchema), description: "Find an order by id" }],
      }),
      agent({ tools: [lookup(orderSchema), refund] }),
      agent({ tools: [lookup(orderSchema), requireApproval(refund)] }),
      agent({ tools: [lookup(orderSchema), requireApproval(refund, { when: () => true })] }),
      agent({
        tools: [lookup(orderSchema), requireApproval(refund, { approvers: { group: "finance" } })],
      }),
      agent({
        tools: [
          lookup(orderSchema),
          requireApproval(refund, { approvers: { group: "finance", quorum: 2 } }),
        ],
      }),
    ];
    const versions = await Promise.all(variants.map((v) => agentVersion(v, {})));
    expect(new Set([base, ...versions]).size).toBe(variants.length + 1);
  });

  it("covers only the static parts of a rule: a rule function is one version whatever it returns", async () => {
    const refund = defineTool({ name: "refund", description: "Refund", run: () => "done" });
    const by = (group: string) =>
      agent({ tools: [requireApproval(refund, { approvers: () => ({ group }) })] });
    expect(await agentVersion(by("finance"), {})).toBe(await agentVersion(by("managers"), {}));
  });

  it("leaves remote tools out, but not the servers the agent is configured with", async () => {
    const remote = (schema: Record<string, unknown>, source: string): Tool => ({
      ...lookup(schema),
      name: "crm_lookup",
      source,
    });
    const base = await agentVersion(agent(), {});
    for (const source of ["mcp:crm", "a2a", "a2a:crm"]) {
      expect(
        await agentVersion(agent({ tools: [lookup(orderSchema), remote({}, source)] }), {}),
      ).toBe(base);
    }
    const mcp = (url: string) => ({ mcpServers: { crm: { url, headers: { auth: "${TOKEN}" } } } });
    const withServer = await agentVersion(agent({ mcp: mcp("https://crm.example/mcp") }), {});
    expect(withServer).not.toBe(base);
    expect(await agentVersion(agent({ mcp: mcp("https://crm2.example/mcp") }), {})).not.toBe(
      withServer,
    );
    const inputs = await versionInputs(agent({ mcp: mcp("https://crm.example/mcp") }), {});
    expect(inputs.mcp).toEqual([{ name: "crm", url: "https://crm.example/mcp", enabled: true }]);
    expect(JSON.stringify(inputs)).not.toContain("TOKEN"); // headers are not in the hash
  });

  it("builds tools from env like a run does", async () => {
    const dynamic = agent({
      tools: (env) => [lookup((env as { schema: object }).schema as never)],
    });
    expect(await agentVersion(dynamic, { schema: orderSchema })).toBe(
      await agentVersion(agent(), {}),
    );
  });

  it("is the agent's own version when it sets one, checked by defineAgent", async () => {
    expect(await agentVersion(agent({ version: "2026-07-01.3" }), {})).toBe("2026-07-01.3");
    for (const bad of ["", "has space", "x".repeat(129), 7 as unknown as string]) {
      expect(() => agent({ version: bad })).toThrow(/version must be/);
    }
    expect(() => agent({ onVersionChange: "retry" as never })).toThrow(/onVersionChange must be/);
  });
});
