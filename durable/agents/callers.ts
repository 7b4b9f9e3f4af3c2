/**
 * A handle's place in the tree, read from its path: `root/coordinator.1/refunds.2` runs
 * `refunds` at depth 2, on behalf of `coordinator`. The agents come from the deployed
 * definitions, so nothing about them is stored with the handle.
 */
import type { AgentDefinition } from "../../src/edge/agent";
import type { Caller, TreeContext } from "./tree";

export const agentOfSegment = (segment: string) => segment.replace(/\.\d+$/, "");

export function callerOf(tree: TreeContext, handle: string): Caller | undefined {
  const segments = handle.split("/").slice(1); // without "root"
  const agents = segments.map((s) => tree.deps.agents.get(agentOfSegment(s)));
  const agent = agents[agents.length - 1];
  if (!agent || agents.some((a) => !a)) {
    return undefined;
  }
  return {
    handle,
    agent,
    depth: segments.length,
    above: (agents.slice(0, -1) as AgentDefinition[]).reverse(),
  };
}
