/**
 * The per-run bookkeeping every entry point shares: the signal a run obeys (the caller's
 * and the client's timeout), the state a new run starts from, and the `run` / `run_error`
 * metrics a finished or failed run reports once. Plain functions, so `build.ts`
 * reads as the entry points alone.
 */
import type { Message, RunResult } from "../types";
import type { MetricEvent } from "../metrics";
import type { RunState } from "../loop/run-loop";
import { emptyUsage } from "../providers/model";
import { RunAbortedError, errorMessage } from "../errors";
import type { CommonClientOptions } from "./options";

/** What a run had reached: its state, or the halted result it resumed from. */
export type Progress = Partial<Pick<RunResult, "turns" | "toolCalls" | "usage">>;
type RunMetricStatus = Extract<MetricEvent, { type: "run" }>["status"];
type Metric = (event: MetricEvent) => void;

/** The caller's signal combined with the client's timeout, if either is set. */
export function runSignal(
  timeoutMs: number | undefined,
  signal: AbortSignal | undefined,
): AbortSignal | undefined {
  if (!timeoutMs) {
    return signal;
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

export function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length > 1 ? AbortSignal.any(present) : present[0];
}

/** The state a new run of `prompt` starts from, after `history` (and the system prompt). */
export function startState(
  { model, systemPrompt }: Pick<CommonClientOptions, "model" | "systemPrompt">,
  prompt: string,
  history: Message[] = [],
): RunState {
  // A new array: the caller's history is never changed (messages themselves are never mutated).
  const user: Message = { role: "user", content: prompt };
  const messages: Message[] =
    systemPrompt && history[0]?.role !== "system"
      ? [{ role: "system", content: systemPrompt }, ...history, user]
      : [...history, user];
  return {
    runId: crypto.randomUUID(),
    messages,
    toolCalls: [],
    turns: 0,
    usage: emptyUsage(),
    model,
  };
}

/**
 * Reports a failed run or translation once (metrics) and gives the error to throw.
 * A run (`started` given) also gets its `run` event, with the totals it reached.
 */
export function failed(
  metric: Metric,
  model: string,
  {
    error,
    combined,
    started,
    progress,
  }: { error: unknown; combined: AbortSignal | undefined; started?: number; progress?: Progress },
): unknown {
  const failure =
    combined?.aborted && !(error instanceof RunAbortedError)
      ? new RunAbortedError(`run aborted: ${errorMessage(combined.reason)}`, combined.reason)
      : error;
  const message = errorMessage(failure);
  metric({ type: "run_error", model, error: message });
  if (started !== undefined) {
    runMetric(metric, model, { status: "failed", progress, started, error: message });
  }
  return failure;
}

/** The per-run metric (SPEC §8 `event: "run"`), one per run whatever its outcome. */
export function runMetric(
  metric: Metric,
  model: string,
  {
    status,
    progress,
    started,
    error,
  }: { status: RunMetricStatus; progress: Progress | undefined; started: number; error?: string },
): void {
  const toolCalls = progress?.toolCalls?.length ?? 0;
  metric({
    type: "run",
    model,
    status,
    turns: progress?.turns ?? 0,
    toolCalls,
    totalTokens: progress?.usage?.totalTokens ?? 0,
    durationMs: Date.now() - started,
    ...(error === undefined ? {} : { error }),
  });
}
