/** An undo as the API shows it (`GET /v1/runs/:id` `undo`, and the undo route's answer). */
import type { CompensationView, UndoView } from "../../src/edge/undo/types";
import type { UndoStore } from "./store";

export function undoView(undo: UndoStore, runId: string): UndoView | undefined {
  const row = undo.undo(runId);
  if (!row) {
    return undefined;
  }
  return {
    reason: row.reason,
    requestedBy: row.requestedBy,
    requestedAt: new Date(row.requestedAt).toISOString(),
    state: row.state,
    finishedAt: row.finishedAt === null ? null : new Date(row.finishedAt).toISOString(),
    compensations: compensationsOf(undo, runId),
    ...(row.request ? { request: row.request } : {}),
  };
}

/** The run's compensation steps as the API lists them (`started` ones still running). */
export function compensationsOf(undo: UndoStore, runId: string): CompensationView[] {
  return undo.steps(runId).map((step) => ({
    callId: step.callId,
    tool: step.tool,
    status: step.status,
    ...(step.output === null ? {} : { output: step.output }),
    ...(step.error === null ? {} : { error: step.error }),
  })) as CompensationView[];
}
