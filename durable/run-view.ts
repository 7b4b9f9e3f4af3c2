import type { RunView } from "../src/edge/protocol";
import type { Usage } from "../src/core/types";
import { decisionView } from "./decisions";
import { parseJson, pendingOfRow, type RunRow, type RunStore } from "./run-store";

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
export function runView(store: RunStore, run: RunRow, withTranscript: boolean): RunView {
  const toolCalls = store.toolCalls(run.run_id);
  const open = run.status === "pending";
  return {
    runId: run.run_id,
    threadId: run.thread_id,
    agent: run.agent,
    status: run.status,
    input: run.input,
    pending: open ? (pendingOfRow(run) ?? null) : null,
    expiresAt: open ? iso(run.expires_at) : null,
    text: run.text,
    usage: JSON.parse(run.usage) as Usage,
    turns: run.turns,
    model: run.model,
    toolCalls,
    toolCallCount: toolCalls.length,
    decisions: store.decisions(run.run_id).map(decisionView),
    error: run.error,
    limit: currentLimit(run.limit_reason),
    metadata: parseJson(run.metadata) ?? null,
    createdAt: isoAt(run.created_at),
    updatedAt: isoAt(run.updated_at),
    cancelledAt: iso(run.cancelled_at),
    ...(withTranscript ? { transcript: store.runMessages(run.run_id) } : {}),
  };
}
