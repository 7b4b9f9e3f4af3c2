/**
 * Compensating a run durably (docs/undo.md): each compensation is a step this object records
 * before it runs (`started`) and after (its outcome, a `compensation` event and a `compensated`
 * receipt, in one transaction). A crash between steps resumes at the next one; a step found
 * `started` without an outcome (the process died while it ran) may have run, so it is never
 * run again: it is reported `failed` ("interrupted"), at most once per call. The last step's
 * transaction also ends the run `compensated`, with the `compensated` event.
 */
import type { CompensationRecord, Tool, ToolCallRecord } from "../../src/core/types";
import type { EnvLike } from "../../src/core/env";
import { compensationPlan, compensateCall } from "../../src/core/compensation";
import type { ReceiptDraft } from "../../src/edge/receipts/receipt";
import type { RunRow, RunStore } from "../storage/run-store";
import type { UndoRow, UndoStore } from "./store";
import { compensationDraft } from "./receipt";
import { compensationsOf } from "./view";

export interface UndoDeps {
  store: RunStore;
  undo: UndoStore;
  /** The run's agent's tools as deployed now (their `compensate`). */
  tools(run: RunRow): Promise<Tool[]>;
  now(): number;
  transaction<T>(fn: () => T): T;
  record(runId: string, type: string, data: unknown): void;
  appendReceipt?(draft: ReceiptDraft, at: Date): void;
  env?: EnvLike;
  signal?: AbortSignal;
  /** The compensations' retry backoff base (tests: 0). */
  retryBaseMs?: number;
}

export const INTERRUPTED =
  "interrupted: the process stopped while this compensation ran; it may have run, so it is not run again";

/** Carries one run's undo to its end. Returns true when it did anything. */
export async function driveUndo(deps: UndoDeps, runId: string): Promise<boolean> {
  const undo = deps.undo.undo(runId);
  if (undo?.state !== "compensating") {
    return false;
  }
  const run = deps.store.requireRun(runId);
  const calls = deps.store.toolCalls(runId);
  const callOf = (id: string, tool: string): ToolCallRecord =>
    calls.find((call) => call.id === id) ?? {
      id,
      name: tool,
      args: {},
      output: "",
      isError: false,
    };
  for (const step of deps.undo.steps(runId).filter((s) => s.status === "started")) {
    settle(
      deps,
      { run, undo, call: callOf(step.callId, step.tool) },
      {
        callId: step.callId,
        tool: step.tool,
        status: "failed",
        error: INTERRUPTED,
      },
    );
  }
  const done = new Set(deps.undo.steps(runId).map((step) => step.callId));
  const tools = new Map((await deps.tools(run)).map((tool) => [tool.name, tool]));
  const plan = compensationPlan(calls, { tool: (name) => tools.get(name), done });
  for (const step of plan) {
    if (step.tool) {
      deps.transaction(() =>
        deps.undo.started(runId, { callId: step.call.id, tool: step.call.name, now: deps.now() }),
      );
      deps.record(runId, "compensating", { callId: step.call.id, tool: step.call.name });
    }
    const record = await compensateCall(step, {
      reason: undo.reason,
      runId,
      ...(deps.env ? { env: deps.env } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(deps.retryBaseMs === undefined ? {} : { retryBaseMs: deps.retryBaseMs }),
    });
    settle(deps, { run, undo, call: step.call }, record);
  }
  deps.transaction(() => {
    const now = deps.now();
    deps.undo.finish(runId, now);
    deps.store.update(runId, { status: "compensated", pending: null, expiresAt: null }, now);
    deps.record(runId, "compensated", {
      reason: undo.reason,
      requestedBy: undo.requestedBy,
      compensations: compensationsOf(deps.undo, runId),
    });
  });
  return true;
}

/** A step's outcome, its event and its receipt, in one transaction. */
function settle(
  deps: UndoDeps,
  { run, undo, call }: { run: RunRow; undo: UndoRow; call: ToolCallRecord },
  record: CompensationRecord,
): void {
  deps.transaction(() => {
    const now = deps.now();
    if (!deps.undo.steps(run.runId).some((step) => step.callId === record.callId)) {
      deps.undo.started(run.runId, { callId: record.callId, tool: record.tool, now });
    }
    deps.undo.finished(run.runId, record, now);
    deps.appendReceipt?.(
      compensationDraft(
        { store: deps.store, run },
        { call, record, reason: undo.reason, requestedBy: undo.requestedBy },
      ),
      new Date(now),
    );
    deps.record(run.runId, "compensation", record);
  });
}
