/**
 * The team graph of the edge's agents, checked once when the edge is built (`createEdge`)
 * with the kernel's registry checks (src/core/agents/registry.ts, without building a
 * registry: the edge keeps its own map of agents): a team that names an
 * agent nobody gave to `createEdge` is an `AgentConfigError` listing the missing and the
 * defined names; a cycle in the graph is refused unless an agent on it sets `budget.maxDepth`.
 */
import { checkAgents } from "../../core/agents/registry";
import type { AgentDef } from "../../core/agents/types";
import type { AgentDefinition } from "../agent";

export function checkTeams<Env>(agents: ReadonlyArray<AgentDefinition<Env>>): void {
  if (!agents.some((agent) => agent.team?.length)) {
    return;
  }
  const defs: AgentDef[] = agents.map((agent) => ({
    name: agent.name,
    does: agent.description,
    ...(agent.team ? { team: [...agent.team] } : {}),
    ...(agent.budget ? { budget: agent.budget } : {}),
  }));
  checkAgents(defs, undefined);
}
