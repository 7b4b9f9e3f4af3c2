/**
 * GET /.well-known/agent-card.json: our agents as one A2A agent, each agent a skill. One card
 * for both versions, each reading the fields it knows:
 * - A2A v0.3 (SPEC §7B): `protocolVersion: "0.3.0"`, `url`, `preferredTransport: "JSONRPC"`;
 *   a v0.3 client speaks `message/send`, `message/stream`, `tasks/get`, `tasks/cancel`,
 *   `tasks/resubscribe`, `tasks/pushNotificationConfig/*` with v0.3 shapes.
 * - A2A 1.0: `supportedInterfaces`, the 1.0 JSON-RPC interface first, then the 0.3 one, at the
 *   same URL. `@a2a-js/sdk` 1.3's client sees `supportedInterfaces`, picks the 1.0 interface
 *   and speaks `SendMessage`, `SendStreamingMessage`, `GetTask`, `CancelTask`,
 *   `SubscribeToTask`, `*TaskPushNotificationConfig*` with `A2A-Version: 1.0`, answered in 1.0's
 *   shapes (v1.ts). A `SendMessage` without that header (the SPEC's literal spelling) gets v0.3's.
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
    supportedInterfaces: [
      { url: `${base}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/a2a`, protocolBinding: "JSONRPC", protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
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
