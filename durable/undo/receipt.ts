/**
 * The receipt of one compensation step (docs/receipts.md, SHAPE of issues 42–44): chained
 * like a decision's, through the same `ThreadReceipts.append`, in the step's transaction.
 * `requestId` is the call's approval request when it had one (`requireApproval` derives it
 * from the call id), else the call id.
 */
import type { CompensationRecord, ToolCallRecord } from "../../src/core/types";
import { argsHash } from "../../src/core/approvers/args-hash";
import type { ReceiptDraft } from "../../src/edge/receipts/receipt";
import type { RunRow, RunStore } from "../storage/run-store";
import { UNRECORDED_VERSION } from "../receipts/record";

/** The channel compensated receipts name: an undo is no approver's vote. */
export const UNDO_CHANNEL = "undo";

export function compensationDraft(
  { store, run }: { store: RunStore; run: RunRow },
  step: { call: ToolCallRecord; record: CompensationRecord; reason: string; requestedBy: string },
): ReceiptDraft {
  const { call, record } = step;
  const approval = `apr_${call.id.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const args =
    typeof call.args === "object" && call.args !== null && !Array.isArray(call.args)
      ? (call.args as Record<string, unknown>)
      : {};
  return {
    threadId: run.threadId,
    runId: run.runId,
    requestId: store.decision(approval) ? approval : call.id,
    tool: call.name,
    argsHash: argsHash(args),
    agentVersion: run.agentVersion ?? UNRECORDED_VERSION,
    rule: null,
    decision: "compensated",
    reason: step.reason,
    decidedBy: step.requestedBy,
    channel: UNDO_CHANNEL,
    compensation: {
      callId: record.callId,
      status: record.status,
      ...(record.error === undefined ? {} : { error: record.error }),
    },
  };
}
