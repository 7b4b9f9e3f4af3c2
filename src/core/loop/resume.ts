/**
 * Durable resume (docs/architecture.md §3, point 3). The halted turn's slots are filled exactly
 * once: the answered call via rule 1; calls that never ran now run; completed calls
 * keep their stored results and are not re-executed; other suspended calls keep their
 * stored request and are surfaced next without running again. While any slot is
 * still suspended the run halts again without calling the model.
 */
import type { Answer, Message, Request, RunResult, ToolCall } from "../types";
import type { Toolkit } from "../toolkit";
import { AnswerSchema, RequestSchema, isPlainAnswer, isPlainRequest } from "../wire";
import { ResumeError } from "../errors";
import { requestsOf } from "../suspension";
import { emptyUsage } from "../providers/model";
import { executeCall, resolveWithAnswer, type ToolMessage } from "./execute-call";
import {
  callEnv,
  checkpointed,
  firstPending,
  halted,
  runTurns,
  type LoopConfig,
  type RunState,
} from "./run-loop";

/** A halted `RunResult` after a JSON round trip; only `messages` is required besides pending. */
export interface ResumeInput extends Partial<Omit<RunResult, "pending" | "messages">> {
  toolkit: Toolkit;
  /** The halted result's `messages` (alias: `messages`). */
  history?: Message[];
  messages?: Message[];
  pending: Request;
  answer: Answer;
  signal?: AbortSignal;
  /** Who decided and through which channel, for the trace's wait span (never read by the loop). */
  decidedBy?: string;
  channel?: string;
}

interface HaltedTurn {
  /** Messages before the halted turn's tool results. */
  prefix: Message[];
  calls: ToolCall[];
  slots: Map<string, ToolMessage>;
}

/** Checks everything before touching anything: a stale or misrouted decision changes nothing. */
export function locateHaltedTurn(history: Message[], pending: Request, answer: Answer): HaltedTurn {
  const request = isPlainRequest(pending) ? undefined : RequestSchema.safeParse(pending);
  if (request && !request.success) {
    throw new ResumeError(
      `pending is not a valid Request: ${request.error.message}`,
      "invalid_state",
    );
  }
  const checked = isPlainAnswer(answer) ? undefined : AnswerSchema.safeParse(answer);
  if (checked && !checked.success) {
    throw new ResumeError(
      `answer is not a valid Answer: ${checked.error.message}`,
      "invalid_state",
    );
  }
  if (answer.id !== pending.id) {
    throw new ResumeError(
      `answer id ${JSON.stringify(answer.id)} does not match the pending request ${JSON.stringify(pending.id)}`,
      "answer_mismatch",
    );
  }
  if (!Array.isArray(history)) {
    throw new ResumeError("history must be the halted run's messages array", "invalid_state");
  }

  const turn = lastTurn(history);
  if (!turn) {
    throw new ResumeError(
      "history does not end with a turn of tool calls; nothing is pending",
      "not_pending",
    );
  }
  const suspended = [...turn.slots.values()].some((s) =>
    requestsOf(s).some((r) => r.id === pending.id),
  );
  if (!suspended) {
    throw new ResumeError(
      `request ${JSON.stringify(pending.id)} is not pending in this transcript`,
      "not_pending",
    );
  }
  return turn;
}

export async function resumeRun(config: LoopConfig, input: ResumeInput): Promise<RunResult> {
  const history = input.history ?? input.messages ?? [];
  const turn = locateHaltedTurn(history, input.pending, input.answer);
  return fillAndContinue(config, input, { turn, answer: input.answer });
}

/** A stored run to carry on from its last checkpoint (the edge's crash recovery). */
export interface ContinueInput extends Partial<Omit<RunResult, "messages">> {
  toolkit: Toolkit;
  history?: Message[];
  messages?: Message[];
  signal?: AbortSignal;
}

/**
 * Carries a run on from a checkpointed transcript without adding a user turn:
 * calls of the last turn that have no result yet run now (with their original
 * call ids, so tools can deduplicate); suspended slots stay suspended; if none
 * remain, the loop continues. A transcript ending in a user message simply runs.
 */
export async function continueRun(config: LoopConfig, input: ContinueInput): Promise<RunResult> {
  const history = input.history ?? input.messages ?? [];
  if (!Array.isArray(history) || history.length === 0) {
    throw new ResumeError("history must be a non-empty messages array", "invalid_state");
  }
  const turn = lastTurn(history);
  if (!turn) {
    return runTurns(config, stateFrom(config, input, history), input);
  }
  return fillAndContinue(config, input, { turn, answer: undefined });
}

function lastTurn(history: Message[]): HaltedTurn | undefined {
  let index = history.length - 1;
  while (index >= 0 && history[index]?.role === "tool") {
    index -= 1;
  }
  const assistant = history[index];
  if (assistant?.role !== "assistant" || !assistant.toolCalls?.length) {
    return undefined;
  }
  const slots = new Map<string, ToolMessage>();
  for (const message of history.slice(index + 1)) {
    if (message.role === "tool" && !slots.has(message.toolCallId)) {
      slots.set(message.toolCallId, message);
    }
  }
  return { prefix: history.slice(0, index + 1), calls: assistant.toolCalls, slots };
}

function stateFrom(config: LoopConfig, input: Partial<RunResult>, messages: Message[]): RunState {
  // New arrays and a new usage object: the caller's stored state stays untouched whatever
  // happens next. Messages are never mutated by the loop, so they need no deep copy.
  return {
    runId: input.runId ?? crypto.randomUUID(),
    messages: messages.slice(),
    toolCalls: (input.toolCalls ?? []).slice(),
    turns: input.turns ?? 0,
    usage: { ...(input.usage ?? emptyUsage()) },
    model: input.model ?? config.model,
  };
}

async function fillAndContinue(
  config: LoopConfig,
  input: ContinueInput,
  { turn, answer }: { turn: HaltedTurn; answer: Answer | undefined },
): Promise<RunResult> {
  const state = stateFrom(config, input, turn.prefix);
  const env = callEnv(config, state, {
    toolkit: input.toolkit,
    turn: Math.max(0, state.turns - 1),
    signal: input.signal,
    calls: turn.calls,
  });

  const filled = await Promise.all(
    turn.calls.map((call): Promise<ToolMessage> => {
      const slot = turn.slots.get(call.id);
      if (!slot) {
        return checkpointed(config, state, executeCall(call, env));
      }
      const requests = requestsOf(slot);
      const answered = answer && requests.find((r) => r.id === answer.id);
      if (answer && answered) {
        const others = requests.filter((r) => r.id !== answered.id);
        return checkpointed(
          config,
          state,
          resolveWithAnswer(call, env, { request: answered, answer, others }),
        );
      }
      return Promise.resolve(slot);
    }),
  );
  state.messages.push(...filled);
  await config.checkpoint?.(state);

  const next = firstPending(turn.calls, filled);
  if (next) {
    return halted(state, next);
  }
  return runTurns(config, state, input);
}
