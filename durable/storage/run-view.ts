import type { ApprovalView, LoggedEvent, RunSummary, RunView } from "../../src/edge/protocol";
import type { Request } from "../../src/core/types";
import { currentArgs, liveApprovals, originalArgs } from "../../src/core/approvers/vote";
import { argsHash } from "../../src/core/approvers/args-hash";
import { quorumOf, rulesOf } from "../../src/core/approvers/rules";
import { decisionView } from "./decision-view";
import { policyFields } from "../../src/edge/policy/view";
import { openRequests } from "./open-requests";
import type { EventRow, RunRow, RunStore } from "./run-store";
import type { ApprovalRow, VoteStore } from "./vote-store";
import type { HandleStore } from "./handle-store";
import type { UndoStore } from "../undo/store";
import { undoView } from "../undo/view";
import type { UndoView } from "../../src/edge/undo/types";

const isoAt = (ms: number) => new Date(ms).toISOString();
const iso = (ms: number | null) => (ms === null ? null : isoAt(ms));

/**
 * A stored `limit_reason` as the API spells it today: runs stored before the kernel took
 * the SPEC's spelling say "max_turns", which reads back as "maxTurns".
 */
export function currentLimit(limit: string | null): string | null {
  return limit === "max_turns" ? "maxTurns" : limit;
}

/** A stored event's JSON as the API spells it today: an older `done` event's limit is respelled. */
export function currentEventData(type: string, data: string): string {
  return type === "done" && data.includes('"limit":"max_turns"')
    ? data.replace('"limit":"max_turns"', '"limit":"maxTurns"')
    : data;
}

/** The public shape of a run (GET /v1/runs/:runId), with its decision audit trail. */
export function runView(
  { store, votes, undo }: { store: RunStore; votes: VoteStore; undo?: UndoStore },
  run: RunRow,
  withTranscript: boolean,
): RunView {
  const toolCalls = store.toolCalls(run.runId);
  const open = run.status === "pending";
  const waiting = open ? openRequests(store, run) : [];
  return {
    runId: run.runId,
    threadId: run.threadId,
    agent: run.agent,
    status: run.status,
    input: run.input,
    pending: open ? pendingView(votes, run.pending ?? undefined) : null,
    expiresAt: open ? iso(run.expiresAt) : null,
    text: run.text,
    usage: run.usage,
    turns: run.turns,
    model: run.model,
    toolCalls,
    toolCallCount: toolCalls.length,
    decisions: store.decisions(run.runId).map(decisionView),
    requests: votes.approvalsOfRun(run.runId).map((row) => approvalView(votes, row)),
    ...(waiting.length > 1 ? { openRequests: waiting } : {}),
    requestedBy: run.requestedBy ?? null,
    agentVersion: run.agentVersion ?? null,
    receiptCount: store.receiptCount(run.runId),
    error: run.error,
    limit: currentLimit(run.limitReason),
    metadata: run.metadata,
    createdAt: isoAt(run.createdAt),
    updatedAt: isoAt(run.updatedAt),
    cancelledAt: iso(run.cancelledAt),
    ...undoOf(undo, run.runId),
    ...(withTranscript ? { transcript: store.runMessages(run.runId) } : {}),
  };
}

/** The run's undo, once one was asked for (durable/undo/). */
function undoOf(undo: UndoStore | undefined, runId: string): { undo?: UndoView } {
  const view = undo && undoView(undo, runId);
  return view ? { undo: view } : {};
}

/** The surfaced request with `argsHash`: the version of its arguments an approval must carry. */
function pendingView(votes: VoteStore, request: Request | undefined): RunView["pending"] {
  if (!request) {
    return null;
  }
  const args = rulesOf(request) ? currentArgs(request, votes.votes(request.id)) : undefined;
  return {
    ...request,
    argsHash: argsHash(args ?? originalArgs(request)),
    ...policyFields(request),
  };
}

/** One request with rules: its votes, the refused attempts, and where the count stands. */
export function approvalView(votes: VoteStore, row: ApprovalRow): ApprovalView {
  const { request } = row;
  const list = votes.votes(row.requestId);
  return {
    requestId: row.requestId,
    rules: (rulesOf(request) ?? {}) as Record<string, unknown>,
    approvals: liveApprovals(list),
    args: currentArgs(request, list),
    argsHash: argsHash(currentArgs(request, list)),
    needed: quorumOf(rulesOf(request)),
    votes: list.map((v) => ({
      decidedBy: v.decidedBy,
      decision: v.decision,
      channel: v.channel,
      ...(v.args === undefined ? {} : { args: v.args }),
      ...(v.argsHash === undefined ? {} : { argsHash: v.argsHash }),
      at: v.at,
      ...(v.reset ? { reset: true as const } : {}),
      ...(v.onBehalfOf ? { onBehalfOf: v.onBehalfOf } : {}),
    })),
    refused: votes.refusals(row.requestId).map((r) => ({
      decidedBy: r.decidedBy,
      channel: r.channel,
      code: r.code,
      at: new Date(r.at).toISOString(),
    })),
    reminders: row.reminders,
    escalatedAt: iso(row.escalatedAt),
    ...policyFields(request),
  };
}

export function runSummary(run: RunRow): RunSummary {
  return {
    runId: run.runId,
    status: run.status,
    input: run.input,
    requestedBy: run.requestedBy ?? null,
    metadata: run.metadata,
    createdAt: isoAt(run.createdAt),
  };
}

/** A stored event as the API spells it today (see {@link currentEventData}), its data parsed. */
export function loggedEvent(row: EventRow): LoggedEvent {
  return {
    id: row.id,
    type: row.type,
    data: JSON.parse(currentEventData(row.type, row.data)) as Record<string, unknown>,
  };
}

/**
 * One resolved call's whole output (GET /v1/runs/:runId/tool-calls/:callId/output), read
 * from the run's call log, where it is kept whole whatever the model was sent. A call of a
 * sub-agent (a handle of the run's tree) is found in its handle's log; the run's own calls
 * are looked at first. Undefined for a call that has no result (yet).
 */
export function toolCallOutput(
  { store, handles }: { store: RunStore; handles: HandleStore },
  { runId, callId }: { runId: string; callId: string },
): string | undefined {
  const own = store.toolCalls(runId).find((entry) => entry.id === callId);
  if (own) {
    return own.output;
  }
  for (const handle of handles.handles(runId)) {
    const entry = handle.toolCalls.find((e) => e.id === callId);
    if (entry) {
      return entry.output;
    }
  }
  return undefined;
}
