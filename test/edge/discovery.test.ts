/**
 * What a client can learn without reading the code: GET /v1/agents lists each tool's
 * input JSON Schema and the static parts of its approval rules; /openapi.json lists
 * every status and content type of each route, and where the worker is.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, requireApproval } from "../../src/core";
import { createEdge } from "../../src/create-edge";
import { defineAgent, describeTool } from "../../src/edge/agent";
import { AgentsSchema } from "../../src/edge/http/schemas";
import { api, BASE } from "../helpers/edge";

describe("GET /v1/agents", () => {
  it("lists each tool's input schema and approval rules, matching its schema", async () => {
    const body = AgentsSchema.parse(await (await api("/v1/agents")).json());
    const support = body.agents.find((a) => a.name === "support")!;
    const tools = Object.fromEntries(support.toolDetails.map((t) => [t.name, t]));
    expect(support.toolDetails.map((t) => t.name)).toEqual(support.tools);

    expect(tools.refund_order!.inputSchema).toMatchObject({
      type: "object",
      properties: { orderId: { type: "string" }, amount: { type: "number" } },
    });
    // The demo's rules: refunds over $1,000 need finance (rules by the amount); deleting an
    // account needs a support lead, reminded and escalated.
    expect(tools.refund_order!.approval).toEqual({
      needsApproval: "conditional",
      rulesByArgs: true,
    });
    expect(tools.delete_account!.approval).toEqual({
      needsApproval: "always",
      group: "support-leads",
      remindEvery: "10m",
      escalate: { after: "30m", to: "managers" },
      warnBefore: "10m",
    });
    expect(tools.lookup_order!.approval).toBeUndefined();
    expect(tools.lookup_order!.description.length).toBeGreaterThan(0);
  });

  it("shows group, quorum, editable keys, reminders and escalation; rules by args only as such", () => {
    const transfer = defineTool({
      name: "transfer",
      description: "Move money",
      inputSchema: z.object({ amount: z.number(), to: z.string() }),
      run: () => "moved",
    });
    const ruled = requireApproval(transfer, {
      approvers: {
        group: "finance",
        quorum: 2,
        editable: ["amount"],
        remindEvery: "4h",
        escalate: { after: "1d", to: "cfo" },
      },
    });
    expect(describeTool(ruled)).toEqual({
      name: "transfer",
      description: "Move money",
      inputSchema: expect.objectContaining({ type: "object", required: ["amount", "to"] }),
      approval: {
        needsApproval: "always",
        group: "finance",
        quorum: 2,
        editable: ["amount"],
        remindEvery: "4h",
        escalate: { after: "1d", to: "cfo" },
      },
    });
    const byArgs = requireApproval(transfer, {
      when: (a: { amount: number }) => a.amount > 100,
      approvers: (a: { amount: number }) => (a.amount > 1000 ? { group: "cfo" } : undefined),
    });
    expect(describeTool(byArgs).approval).toEqual({
      needsApproval: "conditional",
      rulesByArgs: true,
    });
  });

  it("describes tools built from the environment too", async () => {
    const edge = createEdge({
      agents: [
        defineAgent({
          name: "env-tools",
          description: "Tools from env",
          systemPrompt: "…",
          tools: () => [
            requireApproval(
              defineTool({
                name: "wipe",
                description: "Wipe",
                inputSchema: { type: "object", properties: { id: { type: "string" } } },
                run: () => "ok",
              }),
            ),
          ],
          demoModel: () => ({ content: "ok" }),
        }),
      ],
    });
    const { env } = await import("cloudflare:test");
    const response = await edge.worker.fetch!(
      new Request(`${BASE}/v1/agents`, {
        headers: { authorization: "Bearer test-token" },
      }) as never,
      env,
      { waitUntil() {}, passThroughOnException() {}, props: {} } as never,
    );
    const body = AgentsSchema.parse(await response.json());
    expect(body.agents[0]!.toolDetails).toEqual([
      {
        name: "wipe",
        description: "Wipe",
        inputSchema: { type: "object", properties: { id: { type: "string" } } },
        approval: { needsApproval: "always" },
      },
    ]);
  });
});

type Operation = {
  responses: Record<string, { description: string; content?: Record<string, unknown> }>;
};

describe("/openapi.json", () => {
  async function doc() {
    return (await (await SELF.fetch(`${BASE}/openapi.json`)).json()) as {
      servers: Array<{ url: string }>;
      paths: Record<string, Record<string, Operation>>;
    };
  }

  it("has a servers entry: the base this worker was reached at", async () => {
    expect((await doc()).servers).toEqual([{ url: BASE, description: expect.any(String) }]);
  });

  it("every operation lists a 500, and every response its content type", async () => {
    const { paths } = await doc();
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(operation.responses["500"], `${method} ${path}`).toBeDefined();
        for (const [status, response] of Object.entries(operation.responses)) {
          // Redirects and 204 No Content have no body to describe.
          if (!status.startsWith("3") && status !== "204") {
            expect(response.content, `${method} ${path} ${status}`).toBeDefined();
          }
        }
      }
    }
  });

  it("the approval page's problems are pages: 400, 404, 409, 410 as text/html", async () => {
    const page = (await doc()).paths["/approve/{token}"]!;
    for (const method of ["get", "post"]) {
      for (const status of ["200", "400", "404", "409", "410"]) {
        expect(page[method]!.responses[status]?.content, `${method} ${status}`).toHaveProperty([
          "text/html",
        ]);
      }
    }
  });

  it("POST /v1/runs names agent_has_no_model among its 400s", async () => {
    const run = (await doc()).paths["/v1/runs"]!.post!;
    expect(run.responses["400"]!.description).toMatch(/agent_has_no_model/);
  });
});
