/**
 * `POST /v1/runs/:runId/undo` inside the thread's object: checks the run may be undone,
 * records the undo (one per run: a second ask answers with the first's), and drives it at
 * once in the background; the resume queue and the alarm are its backstops, as for a run
 * (durable/thread/drive/drive-now.ts). The steps themselves: drive.ts.
 */
import type { UndoInput, UndoOutcome } from "../../src/edge/undo/types";
import { agentTools } from "../../src/edge/agent";
import { compensationPlan, hasCompensations } from "../../src/core/compensation";
import type { OutboxDelivery } from "../outbox/delivery";
import type { ThreadContext } from "../thread/context";
import { sendResumeSoon } from "../thread/context";
import { armAlarm, WATCHDOG_MS } from "../thread/alarms";
import { driveNow } from "../thread/drive/drive-now";
import type { RunRow } from "../storage/run-store";
import { undoView } from "./view";
import { beginUndo } from "./begin";
import type { UndoRow } from "./store";
import type { Request } from "../../src/core/types";
import { approvalTimeoutOf, type AgentDefinition } from "../../src/edge/agent";
import { UNDO_TOOL, undoRequestId } from "./approval";

export async function undoRun(
  t: ThreadContext,
  delivery: OutboxDelivery,
  input: UndoInput,
): Promise<UndoOutcome> {
  const { runId } = input;
  if (!t.store.run(runId)) {
    return { ok: false, code: "run_not_found", message: `no run ${runId}` };
  }
  const agent = t.agents.get(t.store.requireRun(runId).agent);
  const tools = agent ? await agentTools(agent, t.env) : [];
  // Armed before the undo is recorded (as a decision's backstop is): a process that dies right
  // after the record leaves it to this alarm. An undo refused below leaves a spare alarm only.
  await armAlarm(t, Date.now() + WATCHDOG_MS);
  // Everything below is synchronous: the checks and the insert see the same storage.
  const run = t.store.requireRun(runId);
  const earlier = answerWithEarlier(t, run);
  if (earlier) {
    return earlier;
  }
  if (isActive(t, run)) {
    return {
      ok: false,
      code: "run_active",
      message: `run ${runId} is ${run.status}: undo it once it has finished, or cancel it`,
    };
  }
  const plan = compensationPlan(t.store.toolCalls(runId), {
    tool: (name) => tools.find((tool) => tool.name === name),
  });
  if (!hasCompensations(plan)) {
    return {
      ok: false,
      code: "nothing_to_undo",
      message: `run ${runId} has no completed call whose tool can compensate`,
    };
  }
  const request = agent?.undo ? undoRequest(t, { agent, run, reason: input.reason }) : undefined;
  beginUndo(t, {
    ...input,
    plan: plan.map((step) => step.call.id),
    ...(request ? { request } : {}),
  });
  await armAlarm(t);
  if (request) {
    await delivery.deliver(); // the approvers' inboxes show the undo's request
  } else {
    driveNow(t, delivery, runId);
    sendResumeSoon(t, run);
  }
  const view = undoView(t.undo, runId);
  return view
    ? { ok: true, started: true, status: t.store.requireRun(runId).status, undo: view }
    : { ok: false, code: "run_not_found", message: `no run ${runId}` };
}

/** The undo's approval request: the agent's undo rules; approvers may edit only the reason. */
function undoRequest(
  t: ThreadContext,
  { agent, run, reason }: { agent: AgentDefinition; run: RunRow; reason: string },
): Request | undefined {
  const rules = agent.undo?.approvers;
  if (!rules) {
    return undefined;
  }
  const expiresIn = agent.undo?.expiresIn ?? approvalTimeoutOf(agent, t.env);
  return {
    id: undoRequestId(run.runId, Date.now()),
    kind: "approval",
    prompt: `Undo run ${run.runId} (${run.agent}): ${reason}?`,
    data: { tool: UNDO_TOOL, args: { reason }, approvers: { ...rules, editable: ["reason"] } },
    expiresAt: new Date(Date.now() + expiresIn).toISOString(),
  };
}

/**
 * A run asked to undo before: the first undo's outcome (200) — unless its approvers declined
 * it or let its request expire undecided; then a new undo may be asked.
 */
function answerWithEarlier(t: ThreadContext, run: RunRow): UndoOutcome | undefined {
  const row = t.undo.undo(run.runId);
  if (!row || row.state === "declined" || lapsed(t, row)) {
    return undefined;
  }
  const view = undoView(t.undo, run.runId);
  return view && { ok: true, started: false, status: run.status, undo: view };
}

function lapsed(t: ThreadContext, row: UndoRow): boolean {
  const request = row.request;
  return (
    row.state === "awaiting_approval" &&
    request !== null &&
    !t.store.decision(request.id) &&
    request.expiresAt !== undefined &&
    Date.parse(request.expiresAt) <= Date.now()
  );
}

/** Running or waiting, or cancelled with a decision still to apply to its call. */
function isActive(t: ThreadContext, run: RunRow): boolean {
  return (
    run.status === "running" ||
    run.status === "pending" ||
    t.store.runsWithWork().some((other) => other.runId === run.runId)
  );
}
