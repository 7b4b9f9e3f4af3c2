/**
 * Running compensations. One step (`compensateCall`) asks the tool's `compensate` with the
 * call's arguments and result; a failure (a throw, an error result) is retried with
 * exponential backoff and jitter, as the client retries a model call, and after the last
 * attempt it is reported `failed` with the error, never dropped. `compensateRun` walks a run's
 * plan (plan.ts) last call first, each once, and records every outcome in the run's state.
 */
import type { CompensationRecord, RunResult, ToolResult } from "../types";
import type { Toolkit } from "../toolkit";
import type { EnvLike } from "../env";
import { errorMessage } from "../errors";
import { backoffDelay, sleep } from "../client/retry";
import { compensationPlan, notCompensable, type CompensationStep } from "./plan";

/** Attempts per compensation (the first and two retries). */
export const COMPENSATION_ATTEMPTS = 3;
/** The backoff's base: waits are about 0.5 s, then 1 s. */
export const COMPENSATION_RETRY_BASE_MS = 500;

export interface CompensateOptions {
  /** Why the run is undone: every compensation is told. */
  reason: string;
  signal?: AbortSignal;
  runId?: string;
  env?: EnvLike;
  /** Default `COMPENSATION_ATTEMPTS`. */
  attempts?: number;
  /** Default `COMPENSATION_RETRY_BASE_MS` (tests: 0). */
  retryBaseMs?: number;
}

/** Runs one planned step to its outcome: `ran`, `failed` (after every attempt) or `not_compensable`. */
export async function compensateCall(
  step: CompensationStep,
  options: CompensateOptions,
): Promise<CompensationRecord> {
  const { call, tool } = step;
  if (!tool) {
    return notCompensable(call);
  }
  const attempts = Math.max(1, options.attempts ?? COMPENSATION_ATTEMPTS);
  const result: ToolResult = { output: call.output, isError: call.isError };
  let error = "";
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) {
      await sleep(
        backoffDelay(attempt - 2, options.retryBaseMs ?? COMPENSATION_RETRY_BASE_MS),
        options.signal,
      );
    }
    try {
      const outcome = await tool.compensate(call.args, result, {
        callId: call.id,
        reason: options.reason,
        attempt,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.runId ? { runId: options.runId } : {}),
        ...(options.env ? { env: options.env } : {}),
      });
      if (!outcome.isError) {
        return { callId: call.id, tool: call.name, status: "ran", output: outcome.output };
      }
      error = outcome.output;
    } catch (thrown) {
      if (options.signal?.aborted) {
        throw thrown;
      }
      error = errorMessage(thrown);
    }
  }
  return { callId: call.id, tool: call.name, status: "failed", error };
}

/**
 * Compensates a finished or halted run: its completed calls, last first, each once. What ran
 * is appended to `state.compensations` as it happens (a second call continues where the
 * first stopped and runs nothing twice); returns this call's outcomes.
 */
export async function compensateRun(
  state: Pick<RunResult, "toolCalls" | "compensations" | "runId">,
  options: CompensateOptions & { toolkit: Toolkit },
): Promise<CompensationRecord[]> {
  const done = new Set((state.compensations ?? []).map((record) => record.callId));
  const plan = compensationPlan(state.toolCalls, {
    tool: (name) => options.toolkit.get(name),
    done,
  });
  const outcomes: CompensationRecord[] = [];
  state.compensations ??= [];
  for (const step of plan) {
    const outcome = await compensateCall(step, {
      ...options,
      ...(state.runId ? { runId: state.runId } : {}),
      ...(options.toolkit.env ? { env: options.toolkit.env } : {}),
    });
    state.compensations.push(outcome);
    outcomes.push(outcome);
  }
  return outcomes;
}
