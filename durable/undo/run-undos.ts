/**
 * The thread's drive carries undos on too (durable/thread/drive/index.ts calls this under the
 * drive lock, after the runs' own work): an agent with `onFailure: "compensate"` gets an undo
 * for each of its runs that just failed or was cancelled with compensable calls, and every
 * unfinished undo is driven to its end (drive.ts).
 */
import { agentTools } from "../../src/edge/agent";
import { compensationPlan, hasCompensations } from "../../src/core/compensation";
import type { ThreadContext } from "../thread/context";
import { armAlarm, WATCHDOG_MS } from "../thread/alarms";
import { driveUndo, type UndoDeps } from "./drive";
import { beginUndo } from "./begin";

/** Who an automatic undo is recorded as asked by (receipts' `decidedBy`). */
export const ON_FAILURE = "onFailure";

export async function runUndos(
  t: ThreadContext,
  {
    only,
    touched,
    record,
  }: { only?: string; touched: Iterable<string>; record: UndoDeps["record"] },
): Promise<boolean> {
  let worked = false;
  for (const runId of new Set([...touched, ...(only ? [only] : [])])) {
    worked = (await compensateOnFailure(t, runId)) || worked;
  }
  const deps = undoDeps(t, record);
  for (const runId of t.undo.unfinished().filter((id) => !only || id === only)) {
    await armAlarm(t, Date.now() + WATCHDOG_MS);
    await driveUndo(deps, runId);
    worked = true;
  }
  return worked;
}

/**
 * Starts the automatic undo of a failed or cancelled run whose agent asks for it; true when
 * the agent asks (an undo may have begun, and the alarm was armed).
 */
export async function compensateOnFailure(t: ThreadContext, runId: string): Promise<boolean> {
  if (![...t.agents.values()].some((agent) => agent.onFailure === "compensate")) {
    return false; // no agent asks: the run is not read (issue 46: every drive asked)
  }
  const first = t.store.run(runId);
  const agent = first && t.agents.get(first.agent);
  if (agent?.onFailure !== "compensate") {
    return false;
  }
  const tools = await agentTools(agent, t.env);
  await armAlarm(t, Date.now() + WATCHDOG_MS); // before the record: a process dying after it leaves it to the alarm
  const run = t.store.requireRun(runId);
  if (
    (run.status !== "failed" && run.status !== "cancelled") ||
    t.undo.undo(runId) ||
    t.store.runsWithWork().some((other) => other.runId === runId)
  ) {
    return true;
  }
  const plan = compensationPlan(t.store.toolCalls(runId), {
    tool: (name) => tools.find((tool) => tool.name === name),
  });
  if (!hasCompensations(plan)) {
    return true;
  }
  beginUndo(t, {
    runId,
    reason:
      run.status === "failed" ? `run failed: ${run.error?.message ?? "error"}` : "run cancelled",
    requestedBy: ON_FAILURE,
    plan: plan.map((step) => step.call.id),
  });
  await armAlarm(t);
  return true;
}

export function undoDeps(t: ThreadContext, record: UndoDeps["record"]): UndoDeps {
  return {
    store: t.store,
    undo: t.undo,
    tools: async (run) => {
      const agent = t.agents.get(run.agent);
      return agent ? agentTools(agent, t.env) : [];
    },
    now: () => Date.now(),
    transaction: (fn) => t.state.storage.transactionSync(fn),
    record,
    appendReceipt: (draft, at) => {
      t.receipts.receipts?.append(draft, at);
    },
    env: t.env,
  };
}
