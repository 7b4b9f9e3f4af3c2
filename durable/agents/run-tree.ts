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
import { spentLimit } from "./budget";
import { treeLedger, type TreeLedger } from "./ledger";
import { budgetAdmission } from "../../src/core/agents/limits/admission";
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
  const handles = deps.handles;
  let ledger: TreeLedger | undefined;
  const tree: TreeContext = {
    deps,
    handles,
    run,
    signal,
    concurrency: new Map(),
    ledger: () => {
      ledger ??= treeLedger(rootHandleOf(run), handles.handles(run.runId));
      return ledger;
    },
    admission: budgetAdmission(),
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

/**
 * The run's own agent walks the tree's budgets before each of its model calls too. It takes
 * no admission: its model calls never overlap its children's (they run inside its tool
 * calls), and a hold it kept over its tool calls would make its children wait for it.
 */
export function runLimitBefore(tree: TreeContext | undefined): LimitBefore | undefined {
  return tree ? (state) => spentLimit(tree, rootHandleOf(tree.run), state)?.limit : undefined;
}
