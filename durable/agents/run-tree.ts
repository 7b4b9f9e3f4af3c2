/**
 * The driver's four touch points with the sub-agent tree, so durable/thread/drive/driver.ts only
 * delegates: the tree of this unit of work (for an agent with a team), the run's own `task`
 * tool, its budget walk, and routing a decision to the sub-agent that asked.
 */
import type { Tool } from "../../src/core/types";
import type { AgentDefinition } from "../../src/edge/agent";
import type { DriverDeps } from "../thread/drive/driver-deps";
import type { RunRow } from "../storage/run-store";
import type { LimitBefore } from "../../src/core/loop/run-loop";
import { teamTools } from "./team-tool";
import { liveLimit } from "./budget";
import { rootHandleOf, type TreeContext } from "./tree";

export { routeAnswer } from "./cascade";

export function treeOf(
  deps: DriverDeps,
  run: RunRow,
  signal: AbortSignal,
): TreeContext | undefined {
  const agent = deps.agents.get(run.agent);
  if (!deps.handles || !agent?.team?.length) {
    return undefined;
  }
  const tree: TreeContext = {
    deps,
    handles: deps.handles,
    run,
    signal,
    concurrency: new Map(),
    teamTools: (caller) => teamTools(tree, caller),
  };
  return tree;
}

export function runTeamTools(tree: TreeContext | undefined, agent: AgentDefinition): Tool[] {
  if (!tree) {
    return [];
  }
  return teamTools(tree, { handle: rootHandleOf(tree.run), agent, depth: 1, above: [] });
}

/** The run's own agent walks the tree's budgets before each of its model calls too. */
export function runLimitBefore(tree: TreeContext | undefined): LimitBefore | undefined {
  return tree ? liveLimit(tree, rootHandleOf(tree.run)).limitBefore : undefined;
}
