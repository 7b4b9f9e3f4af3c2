/**
 * GET /.well-known/agent-card.json: our agents as one A2A agent, each agent a skill. The card
 * is A2A v0.3 (`protocolVersion: "0.3.0"`, `url` + `preferredTransport: "JSONRPC"`), the
 * version SPEC §7B pins; `@a2a-js/sdk` 1.3 clients read such a card and speak the v0.3
 * method names (`message/send`, `message/stream`, `tasks/get`, …) to it. POST /a2a answers
 * the SPEC's and A2A 1.0's spellings (`SendMessage`, `GetTask`, …) with the same shapes.
 */
import type { AgentDefinition } from "../../agent";

export const A2A_PROTOCOL_VERSION = "0.3.0";

export function agentCard(agents: AgentDefinition[], base: string) {
  return {
    name: "toolnexus-edge",
    description: `Agents: ${agents.map((a) => a.name).join(", ")}. Pick one with message.metadata.skill (default ${agents[0]?.name ?? "none"}).`,
    version: "0.1.0",
    protocolVersion: A2A_PROTOCOL_VERSION,
    url: `${base}/a2a`,
    preferredTransport: "JSONRPC",
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ["text"],
    defaultOutputModes: ["text"],
    skills: agents.map((agent) => ({
      id: agent.name,
      name: agent.name,
      description: agent.description,
      tags: ["agent"],
      inputModes: ["text", "data"],
      outputModes: ["text"],
    })),
    securitySchemes: {
      apiToken: {
        type: "http",
        scheme: "bearer",
        description:
          "The deployment's API_TOKEN. An optional x-toolnexus-user header names the person the caller acts for.",
      },
    },
    security: [{ apiToken: [] }],
  };
}
