/**
 * The run's sub-agent tree as GET /v1/runs/:id shows it: `tree: [{ handle, agent, state,
 * turns, usage, pending? }]`, the run's own agent first (its state read from the run), then
 * every child in the order it was spawned. Absent for an agent without a team.
 */
import type { AgentDefinition } from "../../src/edge/agent";
import type { RunView, TreeHandleView } from "../../src/edge/protocol";
import type { RunRow } from "../storage/run-store";
import type { ThreadContext } from "../thread/context";
import { runView } from "../storage/run-view";
import { pendingOfHandle, type HandleStore } from "../storage/handle-store";
import { rootHandleOf } from "./tree";

export function withTree(
  view: RunView,
  run: RunRow,
  context: { handles: HandleStore; agents: ReadonlyMap<string, AgentDefinition> },
): RunView {
  if (!context.agents.get(run.agent)?.team?.length) {
    return view;
  }
  const top: TreeHandleView = {
    handle: rootHandleOf(run),
    agent: run.agent,
    state: run.status === "pending" ? "suspended" : run.status === "running" ? "running" : "closed",
    turns: run.turns,
    usage: run.usage,
    ...(view.pending ? { pending: view.pending } : {}),
  };
  const children = context.handles.handles(run.runId).map((row): TreeHandleView => {
    const pending = row.state === "suspended" ? pendingOfHandle(row) : undefined;
    return {
      handle: row.handle,
      agent: row.agent,
      state: row.state,
      turns: row.turns,
      usage: row.usage,
      ...(pending ? { pending } : {}),
    };
  });
  return { ...view, tree: [top, ...children] };
}

/** GET /v1/runs/:id: the run's view, with its tree when its agent has a team. */
export function runViewWithTree(t: ThreadContext, run: RunRow, transcript: boolean): RunView {
  return withTree(runView(t, run, transcript), run, t);
}
