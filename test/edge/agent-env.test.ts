/**
 * An agent's tools and approval timeout may be functions of the application's own `Env`
 * (createEdge<Env>() is generic): the edge hands them the very environment object its entry
 * point was given, typed as the application declared it (src/edge/agents/bind-env.ts).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { defineTool } from "../../src/core";
import { createEdge } from "../../src/create-edge";
import { approvalTimeoutOf, agentTools, defineAgent } from "../../src/edge/agent";
import { bindAgentEnv, envRegistry } from "../../src/edge/agents/bind-env";
import type { EdgeEnv } from "../../src/edge/settings";
import { AgentsSchema } from "../../src/edge/http/schemas";
import { API_TOKEN, BASE } from "../helpers/edge";

interface AppEnv extends EdgeEnv {
  SEARCH_TOOL_NAME: string;
  TIMEOUT_MS: string;
}

function toolNamed(name: string) {
  return defineTool({ name, description: "Named by env", inputSchema: {}, run: () => "ok" });
}

function appAgent(seen: unknown[]) {
  return defineAgent<AppEnv>({
    name: "app-env",
    description: "Tools from the application's Env",
    systemPrompt: "…",
    tools: (appEnv) => {
      seen.push(appEnv);
      return [toolNamed(appEnv.SEARCH_TOOL_NAME)];
    },
    approvalTimeout: (appEnv) => Number(appEnv.TIMEOUT_MS),
    demoModel: () => ({ content: "ok" }),
  });
}

describe("createEdge<Env>: the application's Env reaches its agents", () => {
  it("GET /v1/agents builds the tools from the object the worker was given", async () => {
    const seen: unknown[] = [];
    const edge = createEdge<AppEnv>({ agents: [appAgent(seen)] });
    const appEnv: AppEnv = { ...env, SEARCH_TOOL_NAME: "search_docs", TIMEOUT_MS: "90000" };
    const response = await edge.worker.fetch!(
      new Request(`${BASE}/v1/agents`, {
        headers: { authorization: `Bearer ${API_TOKEN}` },
      }) as never,
      appEnv,
      { waitUntil() {}, passThroughOnException() {}, props: {} } as never,
    );
    const body = AgentsSchema.parse(await response.json());
    expect(body.agents[0]!.tools).toEqual(["search_docs"]);
    expect(seen.length).toBeGreaterThan(0);
    for (const given of seen) {
      expect(given).toBe(appEnv);
    }
  });

  it("a bound agent answers for an environment that entered, and refuses one that did not", async () => {
    const seen: unknown[] = [];
    const envs = envRegistry<AppEnv>();
    const bound = bindAgentEnv(appAgent(seen), envs.appEnv);
    const entered = envs.enter({ SEARCH_TOOL_NAME: "lookup", TIMEOUT_MS: "120000" });
    expect((await agentTools(bound, entered)).map((t) => t.name)).toEqual(["lookup"]);
    expect(approvalTimeoutOf(bound, entered)).toBe(120_000);
    expect(seen).toEqual([entered]);

    const stranger = { SEARCH_TOOL_NAME: "other", TIMEOUT_MS: "1" };
    await expect(agentTools(bound, stranger)).rejects.toThrow(
      /without entering through createEdge/,
    );
    expect(() => approvalTimeoutOf(bound, stranger)).toThrow(/without entering through createEdge/);
  });

  it("static tools and timeouts are kept as they are", () => {
    const envs = envRegistry<AppEnv>();
    const plain = defineAgent({
      name: "plain",
      description: "Static",
      systemPrompt: "…",
      tools: [toolNamed("static_tool")],
      approvalTimeout: 5_000,
    });
    const bound = bindAgentEnv(plain, envs.appEnv);
    expect(bound.tools).toBe(plain.tools);
    expect(bound.approvalTimeout).toBe(5_000);
    expect(Object.isFrozen(bound)).toBe(true);
    expect(
      "approvalTimeout" in bindAgentEnv({ ...plain, approvalTimeout: undefined }, envs.appEnv),
    ).toBe(false);
  });
});
