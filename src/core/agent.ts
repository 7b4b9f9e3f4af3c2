/**
 * `agent(...)`: the one name the contract gives two kinds of agent (DESIGN §7). With a name
 * and a definition it is a sub-agent of this runtime (SPEC §7D: `agent.run`, `agent.asTool()`);
 * with `{ card }` it is a remote A2A agent whose skills become tools (SPEC §7A).
 */
import { agent as remoteAgent, type A2AAgent, type AgentOptions } from "./a2a";
import { agent as localAgent, type Agent } from "./agents/agent";
import type { AgentDef } from "./agents/types";

export function agent(options: AgentOptions): A2AAgent;
export function agent(name: string, definition: Omit<AgentDef, "name">): Agent;
export function agent(
  first: string | AgentOptions,
  definition?: Omit<AgentDef, "name">,
): A2AAgent | Agent {
  if (typeof first === "string") {
    if (!definition) {
      throw new TypeError(`agent(${JSON.stringify(first)}): a sub-agent needs its definition`);
    }
    return localAgent(first, definition);
  }
  return remoteAgent(first);
}
