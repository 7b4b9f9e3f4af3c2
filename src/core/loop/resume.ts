/**
 * Durable resume (DESIGN.md §3, point 3). The halted turn's slots are filled exactly
 * once: the answered call via rule 1; calls that never ran now run; completed calls
 * keep their stored results and are not re-executed; other suspended calls keep their
 * stored request and are surfaced next without running again. While any slot is
 * still suspended the run halts again without calling the model.
 */
import type { Answer, Message, Request, RunResult, ToolCall } from "../types";
import type { Toolkit } from "../toolkit";
import { AnswerSchema, RequestSchema } from "../wire";
import { ResumeError } from "../errors";
import { emptyUsage } from "../providers/model";
import { executeCall, resolveWithAnswer, type ToolMessage } from "./execute-call";
import { callEnv, firstPending, halted, runTurns, type LoopConfig, type RunState } from "./run-loop";

/** A halted `RunResult` after a JSON round trip; only `messages` is required besides pending. */
export interface ResumeInput extends Partial<Omit<RunResult, "pending" | "messages">> {
  toolkit: Toolkit;
  /** The halted result's `messages` (alias: `messages`). */
  history?: Message[];
  messages?: Message[];
  pending: Request;
  answer: Answer;
  signal?: AbortSignal;
}

interface HaltedTurn {
  /** Messages before the halted turn's tool results. */
  prefix: Message[];
  calls: ToolCall[];
  slots: Map<string, ToolMessage>;
}

/** Checks everything before touching anything: a stale or misrouted decision changes nothing. */
export function locateHaltedTurn(history: Message[], pending: Request, answer: Answer): HaltedTurn {
  const request = RequestSchema.safeParse(pending);
  if (!request.success) throw new ResumeError(`pending is not a valid Request: ${request.error.message}`, "invalid_state");
  const checked = AnswerSchema.safeParse(answer);
  if (!checked.success) throw new ResumeError(`answer is not a valid Answer: ${checked.error.message}`, "invalid_state");
  if (answer.id !== pending.id) {
    throw new ResumeError(
      `answer id ${JSON.stringify(answer.id)} does not match the pending request ${JSON.stringify(pending.id)}`,
      "answer_mismatch",
    );
  }
  if (!Array.isArray(history)) throw new ResumeError("history must be the halted run's messages array", "invalid_state");

  let index = history.length - 1;
  while (index >= 0 && history[index]?.role === "tool") index -= 1;
  const assistant = history[index];
  if (!assistant || assistant.role !== "assistant" || !assistant.toolCalls?.length) {
    throw new ResumeError("history does not end with a turn of tool calls; nothing is pending", "not_pending");
  }
  const slots = new Map<string, ToolMessage>();
  for (const message of history.slice(index + 1)) {
    if (message.role === "tool" && !slots.has(message.toolCallId)) slots.set(message.toolCallId, message);
  }
  const suspended = [...slots.values()].some((s) => s.pending?.id === pending.id);
  if (!suspended) {
    throw new ResumeError(`request ${JSON.stringify(pending.id)} is not pending in this transcript`, "not_pending");
  }
  return { prefix: history.slice(0, index + 1), calls: assistant.toolCalls, slots };
}

export async function resumeRun(config: LoopConfig, input: ResumeInput): Promise<RunResult> {
  const history = input.history ?? input.messages ?? [];
  const turn = locateHaltedTurn(history, input.pending, input.answer);
  // Deep copy: the caller's halted state stays untouched whatever happens next.
  const state: RunState = {
    runId: input.runId ?? crypto.randomUUID(),
    messages: structuredClone(turn.prefix),
    toolCalls: structuredClone(input.toolCalls ?? []),
    turns: input.turns ?? 0,
    usage: structuredClone(input.usage ?? emptyUsage()),
    model: input.model ?? config.model,
  };
  const env = callEnv(config, { ...state, turns: Math.max(0, state.turns - 1) }, input.toolkit, input.signal);
  env.record = (entry) => state.toolCalls.push(entry);

  const filled = await Promise.all(
    turn.calls.map((call): Promise<ToolMessage> => {
      const slot = turn.slots.get(call.id);
      if (!slot) return executeCall(call, env);
      if (slot.pending?.id === input.pending.id) return resolveWithAnswer(call, slot.pending, input.answer, env);
      return Promise.resolve(structuredClone(slot));
    }),
  );
  state.messages.push(...filled);

  const next = firstPending(turn.calls, filled);
  if (next) return halted(state, next);
  return runTurns(config, state, input.toolkit, input.signal);
}
