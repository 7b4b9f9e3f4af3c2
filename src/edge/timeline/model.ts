/**
 * What the run timeline shows, computed from the run's view and its event log (pure, no
 * HTML): one row per model call, tool call and request, each with a start and an end on one
 * clock, so the page can draw them to scale. The event log gives the times (each row is
 * stored with the time it was appended); the run view gives decisions, votes, reminders and
 * escalation.
 */
import type { ApprovalView, DecisionView, RunView } from "../protocol";
import { ModelCalls, type ModelCallRow } from "./model-calls";

/** One stored event: what `GET /v1/runs/:id/events` replays, with the time it was recorded. */
export interface TimelineEvent {
  id: number;
  type: string;
  data: unknown;
  /** Epoch ms. */
  at: number;
}

export interface TimelineInput {
  run: RunView;
  events: TimelineEvent[];
  /** The render time: the end of anything still open. Default now. */
  now?: number;
}

export type TimelineRow =
  | ModelCallRow
  | {
      kind: "tool";
      callId: string;
      name: string;
      args: unknown;
      output?: string;
      isError?: boolean;
      start: number;
      end: number;
      open: boolean;
      /** Suspended on a request that is not decided yet: it has not run. */
      waiting?: boolean;
    }
  | {
      kind: "request";
      requestId: string;
      prompt: string;
      requestKind: string;
      /** Who was asked: the rule's group or members; escalation adds its group. */
      asked: string[];
      start: number;
      end: number;
      open: boolean;
      marks: Array<{ at: number; label: string }>;
      votes: Array<{
        at: number;
        by: string;
        decision: string;
        channel: string;
        reset: boolean;
        /** An edit: the full arguments this vote approved. */
        edited?: unknown;
      }>;
      decision?: {
        decision: string;
        by: string | null;
        channel: string;
        at: number;
        reason?: string;
      };
    };

export interface Timeline {
  start: number;
  end: number;
  rows: TimelineRow[];
  /** Run-level moments: resumed, done, error. */
  marks: Array<{ at: number; label: string }>;
}

export function buildTimeline(input: TimelineInput): Timeline {
  const { run } = input;
  const now = input.now ?? Date.now();
  const events = [...input.events].sort((a, b) => a.at - b.at || a.id - b.id);
  const start = Math.min(parseTime(run.createdAt) ?? now, events[0]?.at ?? now);
  const rows: TimelineRow[] = [];
  const marks: Timeline["marks"] = [];
  const tools = new Map<string, Extract<TimelineRow, { kind: "tool" }>>();
  const requests = new Map<string, Extract<TimelineRow, { kind: "request" }>>();
  /** A suspended call's request id → its tool call id: the call runs when the decision comes. */
  const suspendedCalls = new Map<string, string>();
  const model = new ModelCalls(start, (row) => rows.push(row));

  for (const event of events) {
    const data = isRecord(event.data) ? event.data : {};
    switch (event.type) {
      case "text":
        model.streamed(typeof data.delta === "string" ? data.delta : "");
        break;
      case "usage": {
        const usage = isRecord(data.usage) ? data.usage : data;
        model.answered(
          event.at,
          typeof usage.totalTokens === "number" ? usage.totalTokens : undefined,
        );
        break;
      }
      case "tool_call": {
        model.answered(event.at);
        const callId = String(data.id ?? "");
        const row = {
          kind: "tool" as const,
          callId,
          name: String(data.name ?? ""),
          args: data.args,
          start: event.at,
          end: event.at,
          open: true,
        };
        tools.set(callId, row);
        rows.push(row);
        break;
      }
      case "tool_result": {
        const callId = String(data.id ?? "");
        const row = tools.get(callId);
        if (row) {
          row.output = String(data.output ?? "");
          row.isError = data.isError === true;
          row.end = event.at;
          row.open = false;
        }
        model.next(event.at);
        break;
      }
      case "pending": {
        const request = isRecord(data.request) ? data.request : {};
        const requestId = String(request.id ?? "");
        model.pending(requestId);
        const call = typeof data.id === "string" ? tools.get(data.id) : undefined;
        if (call) {
          suspendedCalls.set(requestId, call.callId);
          call.waiting = true;
        }
        if (!requests.has(requestId)) {
          const row = requestRow(run, { request, requestId, at: event.at });
          requests.set(requestId, row);
          rows.push(row);
        }
        break;
      }
      case "reminded":
      case "escalated": {
        const row = requests.get(String(data.requestId ?? ""));
        const label =
          event.type === "reminded"
            ? `reminder ${typeof data.n === "number" ? data.n : ""}`.trim()
            : `escalated to ${String(data.to ?? "")}`;
        if (event.type === "escalated" && row && typeof data.to === "string") {
          row.asked.push(data.to);
        }
        row?.marks.push({ at: event.at, label });
        break;
      }
      case "task_polled": {
        // A remote task's state at each poll, on the bar of the request that waits for it.
        const row = requests.get(String(data.requestId ?? ""));
        row?.marks.push({ at: event.at, label: `task ${String(data.state ?? "")}`.trim() });
        break;
      }
      case "resumed": {
        marks.push({ at: event.at, label: "resumed" });
        const requestId = typeof data.requestId === "string" ? data.requestId : undefined;
        // The suspended call's bar is its execution, after the wait the request's bar shows.
        const call = requestId ? tools.get(suspendedCalls.get(requestId) ?? "") : undefined;
        if (call?.open) {
          call.start = event.at;
          call.waiting = false;
        }
        model.next(event.at, requestId ?? true);
        break;
      }
      case "done":
      case "error":
        marks.push({ at: event.at, label: event.type });
        model.finish(event.at, false);
        break;
      case "undo":
      case "compensation":
      case "compensated": {
        const label = undoLabel(event.type, data);
        if (label) {
          marks.push({ at: event.at, label });
        }
        break;
      }
      default:
        break;
    }
  }
  model.finish(now, run.status === "running");

  for (const row of requests.values()) {
    settle(row, run.decisions, now);
  }
  for (const row of tools.values()) {
    if (row.open) {
      row.end = row.waiting ? row.start : now;
    }
  }
  // A finished run's scale ends with it, however much later the page is looked at.
  const open = run.status === "running" || run.status === "pending";
  const end = Math.max(
    start + 1,
    open ? now : start,
    ...rows.map((r) => r.end),
    ...marks.map((m) => m.at),
  );
  return { start, end, rows, marks };
}

/** An undo's marks (docs/undo.md): asked, each compensation's outcome, the run compensated. */
function undoLabel(type: string, data: Record<string, unknown>): string | undefined {
  if (type === "undo") {
    return `undo asked by ${String(data.requestedBy ?? "")}: ${String(data.reason ?? "")}`;
  }
  if (type === "compensation") {
    return `compensation of ${String(data.tool ?? "")}: ${String(data.status ?? "")}`;
  }
  return "compensated";
}

/** The row of a request the run surfaced: `request` as its `pending` event logged it, `at` that event's time. */
function requestRow(
  run: RunView,
  { request, requestId, at }: { request: Record<string, unknown>; requestId: string; at: number },
): Extract<TimelineRow, { kind: "request" }> {
  const data = isRecord(request.data) ? request.data : {};
  const rules = isRecord(data.approvers) ? data.approvers : {};
  const asked: string[] = [];
  if (typeof rules.group === "string") {
    asked.push(rules.group);
  }
  if (Array.isArray(rules.anyOf)) {
    asked.push(...rules.anyOf.filter((m): m is string => typeof m === "string"));
  }
  const approval: ApprovalView | undefined = run.requests.find((r) => r.requestId === requestId);
  return {
    kind: "request",
    requestId,
    prompt: String(request.prompt ?? ""),
    requestKind: String(request.kind ?? ""),
    asked,
    start: at,
    end: at,
    open: true,
    marks: [],
    votes: (approval?.votes ?? []).map((v) => ({
      at: parseTime(v.at) ?? at,
      by: v.decidedBy,
      decision: v.decision,
      channel: v.channel,
      reset: v.reset === true,
      ...(v.args === undefined ? {} : { edited: v.args }),
    })),
  };
}

function settle(
  row: Extract<TimelineRow, { kind: "request" }>,
  decisions: DecisionView[],
  now: number,
): void {
  const decided = decisions.find((d) => d.requestId === row.requestId);
  if (!decided) {
    row.end = now;
    return;
  }
  const at = parseTime(decided.decidedAt) ?? now;
  const reason = decided.answer.ok ? undefined : decided.answer.reason;
  row.decision = {
    decision: decided.decision,
    by: decided.decidedBy,
    channel: decided.channel,
    at,
    ...(reason ? { reason } : {}),
  };
  row.end = Math.max(row.start, at);
  row.open = false;
}

function parseTime(iso: string | null | undefined): number | undefined {
  const t = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(t) ? t : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
