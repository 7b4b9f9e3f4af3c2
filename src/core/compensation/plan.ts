/**
 * What an undo of a run would take back: every call that completed (no error result), last
 * first, minus those already compensated. A call whose tool has a `compensate` (recorded
 * `compensable` when it ran, and still there in the toolkit) is a step to run; any other
 * completed call is listed `not_compensable`, so nothing is skipped silently.
 */
import type { CompensationRecord, Tool, ToolCallRecord } from "../types";

/** One entry of the plan: the call, and its tool when the call can be taken back. */
export interface CompensationStep {
  call: ToolCallRecord;
  /** Absent: the call is `not_compensable`. */
  tool?: Tool & { compensate: NonNullable<Tool["compensate"]> };
}

export function compensationPlan(
  toolCalls: readonly ToolCallRecord[],
  options: {
    /** The tools as deployed now (a tool removed since cannot compensate). */
    tool(name: string): Tool | undefined;
    /** Calls already compensated (or reported), by call id: never planned again. */
    done?: ReadonlySet<string>;
  },
): CompensationStep[] {
  const steps: CompensationStep[] = [];
  for (const call of [...toolCalls].reverse()) {
    if (call.isError || options.done?.has(call.id)) {
      continue;
    }
    const tool = call.compensable ? options.tool(call.name) : undefined;
    steps.push(
      tool?.compensate ? { call, tool: tool as CompensationStep["tool"] & object } : { call },
    );
  }
  return steps;
}

/** Whether a plan has anything to run (else an undo has nothing to do: `nothing_to_undo`). */
export function hasCompensations(steps: readonly CompensationStep[]): boolean {
  return steps.some((step) => step.tool !== undefined);
}

/** The record of a call the plan lists but cannot take back. */
export function notCompensable(call: ToolCallRecord): CompensationRecord {
  return { callId: call.id, tool: call.name, status: "not_compensable" };
}
