/**
 * What the driver writes while the kernel runs: each event into the run's log (the
 * SSE vocabulary), and each turn boundary into storage. Committed messages are
 * appended, never rewritten; the halted turn's results live in `slots`.
 */
import type { Answer, Message, Request, RunResult } from "../../../src/core/types";
import type { RunEvent } from "../../../src/core/events";
import type { RunState } from "../../../src/core/loop/run-loop";
import type { DriverDeps, Work } from "./driver-deps";
import type { RunRow, ToolMessage } from "../../storage/run-store";
import { pathOf } from "../../agents/tree";
import { requestsOf } from "../../../src/core/suspension";

/** Kernel events → the run's event log (the SSE vocabulary). `done` is recorded by `finish`. */
export function forward(deps: DriverDeps, runId: string, event: RunEvent): void {
  switch (event.type) {
    case "text":
      deps.record(runId, "text", { delta: event.delta });
      break;
    case "tool_call":
      deps.record(runId, "tool_call", { id: event.id, name: event.name, args: event.args });
      break;
    case "tool_result":
      recordPolicyDecision(deps, runId, event.metadata?.policy);
      deps.record(runId, "tool_result", {
        id: event.id,
        name: event.name,
        output: event.output,
        isError: event.isError,
        // The model was sent only part of it: the whole is at GET …/tool-calls/:id/output.
        ...(event.truncated ? { truncated: event.truncated } : {}),
      });
      break;
    case "pending":
      deps.record(runId, "pending", {
        request: event.request,
        ...(event.id === undefined ? {} : { id: event.id }),
        // A sub-agent's request: the handle that asked (durable/agents/).
        ...(pathOf(event.request) ? { handle: pathOf(event.request) } : {}),
      });
      break;
    case "usage":
    case "done":
      break;
  }
}

/**
 * A policy that decided automatically goes into the ledger too: the audit trail shows every
 * decision. And into the inbox projection as a decided item (channel `policy`), so the
 * dashboard counts auto-decisions; Slack, email and Teams post nothing for an item that was
 * never open.
 */
function recordPolicyDecision(deps: DriverDeps, runId: string, policy: unknown): void {
  const parsed = policy as { request?: Request; answer?: Answer } | undefined;
  if (!parsed?.request?.id || !parsed.answer || deps.store.decision(parsed.request.id)) {
    return;
  }
  const request = parsed.request;
  const now = deps.now();
  const row = {
    requestId: request.id,
    runId,
    decision: parsed.answer.ok ? ("approve" as const) : ("decline" as const),
    answer: { ...parsed.answer, id: request.id },
    channel: "policy" as const,
    decidedBy: "policy",
    webhookId: null,
    decidedAt: now,
  };
  deps.transaction(() => {
    deps.store.insertDecision(row, request);
    deps.store.markApplied(request.id, now);
    deps.inbox?.settled(deps.store.requireRun(runId), request, { ...row, appliedAt: now });
  });
}

/**
 * Persists a run as it goes. `turn` at every turn boundary: committed messages are appended,
 * never rewritten; the halted turn's results live in `slots` until none of them is suspended.
 * `call` as each tool call settles: its result becomes its `slots` row, in one transaction
 * with its `tool_result` event (held back by `event` until then) and its `toolCalls` entry,
 * so recovery after a crash runs only the calls that have no row (exactly once per completed
 * call; a call the crash interrupted runs again with the same `ctx.callId`).
 */
/** What one drive checkpoints against: its run, where its stored transcript ends, its work. */
export interface CheckpointScope {
  run: RunRow;
  /** Messages already stored (the transcript's committed length). */
  committed: number;
  /** The run's stored tool-call log. */
  stored: RunResult["toolCalls"];
  work: Work;
  /** Aborted by `cancel()` in the same step as it stores the status. */
  signal: AbortSignal;
}

export function checkpointer(deps: DriverDeps, scope: CheckpointScope) {
  const { run, stored, work, signal } = scope;
  // Each call's place in its turn, built once per turn (not searched once per call: issue 37).
  let placed: { calls: unknown; at: Map<string, number> } | undefined;
  const positions = (state: RunState): Map<string, number> => {
    const assistant = state.messages.findLast((m) => m.role === "assistant");
    const calls = assistant?.role === "assistant" ? (assistant.toolCalls ?? []) : [];
    if (placed?.calls !== calls) {
      placed = { calls, at: new Map(calls.map((c, i) => [c.id, i])) };
    }
    return placed.at;
  };
  let { committed } = scope;
  const finalOnly = work.kind === "answer" && work.finalOnly;
  const held = new Map<string, RunEvent>();
  let toolCallsSeen = stored.length; // entries of state.toolCalls already looked at
  const saved = new Set<string>(); // ids of this drive's entries stored ahead of their turn

  // `cancel()` aborts the driver's signal in the same step as it stores the status.
  const checkCancelled = () => {
    if (!finalOnly && signal.aborted) {
      // The cancel closed the turn already; writing now would add results twice.
      throw new Error("run cancelled");
    }
  };
  const flushHeld = () => {
    for (const event of held.values()) {
      forward(deps, run.runId, event);
    }
    held.clear();
  };
  const saveToolCalls = (state: RunState, only?: string) => {
    const fresh =
      only === undefined
        ? state.toolCalls.slice(toolCallsSeen).filter((entry) => !saved.has(entry.id))
        : lastEntryOf(state, { id: only, from: toolCallsSeen, saved });
    deps.store.appendToolCalls(run.runId, fresh);
    if (only === undefined) {
      toolCallsSeen = state.toolCalls.length;
      saved.clear();
    } else {
      for (const entry of fresh) {
        saved.add(entry.id);
      }
    }
  };

  return {
    /** The run's events: a `tool_result` waits for its call's row (see `call`). */
    event(event: RunEvent): void {
      if (event.type === "tool_result") {
        held.set(event.id, event);
      } else {
        forward(deps, run.runId, event);
      }
    },

    call(state: RunState, result: ToolMessage): void {
      checkCancelled();
      const position = positions(state).get(result.toolCallId) ?? -1;
      deps.transaction(() => {
        const event = held.get(result.toolCallId);
        if (event) {
          held.delete(result.toolCallId);
          forward(deps, run.runId, event);
        }
        deps.store.putSlot(run.runId, Math.max(position, 0), result);
        saveToolCalls(state, result.toolCallId);
      });
    },

    turn(state: RunState): void {
      checkCancelled();
      deps.transaction(() => {
        flushHeld();
        const lastAssistant = state.messages.findLastIndex((m) => m.role === "assistant");
        const turnResults = state.messages
          .slice(lastAssistant + 1)
          .filter((m): m is ToolMessage => m.role === "tool");
        const halted = turnResults.some((m) => m.pending);
        const end = halted ? lastAssistant + 1 : state.messages.length;
        const fresh: Message[] = state.messages.slice(committed, Math.max(committed, end));
        deps.store.appendMessages(run.runId, fresh);
        committed += fresh.length;
        if (halted) {
          deps.store.putSlots(run.runId, turnResults);
        } else {
          deps.store.clearSlots(run.runId);
        }
        saveToolCalls(state);
        const fields: Partial<RunRow> = {
          usage: state.usage,
          turns: state.turns,
          model: state.model,
        };
        if (work.kind === "answer") {
          const answered = turnResults.find((m) =>
            requestsOf(m).some((r) => r.id === work.request.id),
          );
          if (!answered) {
            deps.store.markApplied(work.request.id, deps.now());
            if (!work.finalOnly) {
              Object.assign(fields, { status: "running", pending: null, expiresAt: null });
            } else {
              Object.assign(fields, { pending: null });
            }
          }
        }
        deps.store.update(run.runId, fields, deps.now());
      });
    },
  };
}

/**
 * The entry of the call that just settled, not yet stored: the loop records it last, so the
 * search from the end finds it at once (a scan of the whole turn per call was O(turn²)).
 */
function lastEntryOf(
  state: RunState,
  { id, from, saved }: { id: string; from: number; saved: Set<string> },
): RunState["toolCalls"] {
  for (let i = state.toolCalls.length - 1; i >= from; i -= 1) {
    const entry = state.toolCalls[i];
    if (entry?.id === id) {
      return saved.has(id) ? [] : [entry];
    }
  }
  return [];
}
