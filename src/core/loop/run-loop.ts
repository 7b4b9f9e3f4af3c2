/**
 * The tool-calling loop, written once for every wire style and for the durable
 * resume: model → tool calls (concurrently) → tool results → model … until the
 * model answers without tools, a limit is hit, or a call suspends with no `waitFor`.
 */
import type { Message, RefusalText, RunResult, ToolCall, Usage, WaitFor } from "../types";
import type { Toolkit } from "../toolkit";
import type { Hooks } from "../hooks";
import type { MetricEvent } from "../metrics";
import type { Emit } from "../events";
import type { ModelRequest, ModelTurn } from "../providers/model";
import { addUsage } from "../providers/model";
import { newCallId } from "../providers/call-ids";
import { executeCall, type CallEnv, type ToolMessage } from "./execute-call";

/** One model call of the loop, beside its request: the run's signal, the turn, and the text sink. */
export interface ModelCall {
  signal: AbortSignal | undefined;
  /** Turns completed before this call (0 for the run's first). */
  turn: number;
  /**
   * Given, a caller that can stream hands text to it as it arrives; one that cannot
   * ignores it (the loop then emits the turn's text whole).
   */
  onText?: ((delta: string) => void) | undefined;
}

/** Produces one model turn. */
export type ModelCaller = (request: ModelRequest, call: ModelCall) => Promise<ModelTurn>;

export interface LoopConfig {
  model: string;
  callModel: ModelCaller;
  maxTurns: number;
  hooks: Hooks;
  waitFor?: WaitFor;
  refusalText?: RefusalText;
  requestParams?: Record<string, unknown>;
  metric(event: MetricEvent): void;
  /** Absent when nobody listens: events are then not even built. */
  emit?: Emit;
  /** Text deltas (and whole unstreamed text), for a caller that wants only those: no event per delta. */
  onText?: (delta: string) => void;
  /** Ask the model for its reply as a stream and emit text deltas as they arrive. */
  stream?: boolean;
  /** Called at every turn boundary (after the model's reply, after the turn's tool results) so a host can persist. */
  checkpoint?: (state: RunState) => Promise<void> | void;
  /**
   * Called as each tool call settles (its result, or its suspension's placeholder), before
   * the turn's other calls have, so a host can persist every call's result as it completes
   * and, after a crash, run again only the calls that have none.
   */
  callCheckpoint?: CallCheckpoint;
  /** See `CommonClientOptions.limitBefore`: asked before every model call. */
  limitBefore?: LimitBefore;
  /** See `CommonClientOptions.maxToolOutputBytes`; a tool's own `maxOutputBytes` wins. */
  maxToolOutputBytes: number;
}

/**
 * A limit the host keeps outside the run (a budget its siblings spend too): the name of
 * the spent one stops the run `incomplete` with that limit, before the model is called.
 * It may return a promise: a host that admits model calls against a shared budget
 * (src/core/agents/limits/admission.ts) waits there until this call may start.
 */
export type LimitBefore = (state: RunState) => string | undefined | Promise<string | undefined>;

/** See {@link LoopConfig.callCheckpoint}: `state.messages` ends with the turn's assistant message. */
export type CallCheckpoint = (state: RunState, result: ToolMessage) => Promise<void> | void;

/**
 * `run(call)` followed by the per-call checkpoint, when there is one (without one, no
 * extra await: the hot path stays as it was).
 */
export function checkpointed(
  config: LoopConfig,
  state: RunState,
  running: Promise<ToolMessage>,
): Promise<ToolMessage> {
  const save = config.callCheckpoint;
  return save
    ? running.then(async (result) => {
        await save(state, result);
        return result;
      })
    : running;
}

/** Everything a run carries between turns; a halted `RunResult` is this state as JSON. */
export interface RunState {
  runId: string;
  messages: Message[];
  toolCalls: RunResult["toolCalls"];
  turns: number;
  usage: Usage;
  model: string;
}

/** What a run's turns use: the toolkit, and the signal that aborts them. */
export interface RunWith {
  toolkit: Toolkit;
  signal?: AbortSignal | undefined;
}

/**
 * `turn` is the index of the model call that asked for the tools (the same number `beforeLLM`
 * saw); `calls` are that turn's calls, for each call's `ctx.callOrdinal`.
 */
export function callEnv(
  config: LoopConfig,
  state: RunState,
  {
    toolkit,
    turn,
    signal,
    calls,
  }: { toolkit: Toolkit; turn: number; signal?: AbortSignal | undefined; calls: ToolCall[] },
): CallEnv {
  return {
    ordinals: ordinalsOf(calls),
    toolkit,
    hooks: config.hooks,
    waitFor: config.waitFor,
    ...(config.refusalText ? { refusalText: config.refusalText } : {}),
    runId: state.runId,
    turn,
    signal,
    metric: config.metric,
    emit: config.emit,
    record: (entry) => state.toolCalls.push(entry),
    sourceOf: (name) => toolkit.get(name)?.source ?? "unknown",
    maxOutputBytes: (name) => toolkit.get(name)?.maxOutputBytes ?? config.maxToolOutputBytes,
  };
}

/**
 * Each call's place among the turn's calls to the same tool (0 for the first): deterministic,
 * whatever order the calls settle in, so a cap such as "16 `task` calls per turn" refuses the
 * same calls on every replay. One pass over the turn.
 */
function ordinalsOf(calls: ToolCall[]): Map<string, number> {
  const perName = new Map<string, number>();
  const ordinals = new Map<string, number>();
  for (const call of calls) {
    const n = perName.get(call.name) ?? 0;
    perName.set(call.name, n + 1);
    ordinals.set(call.id, n);
  }
  return ordinals;
}

/** The first suspended slot of the last turn, in tool-call order (rule 2). One pass, any turn size. */
export function firstPending(calls: ToolCall[], slots: ToolMessage[]) {
  const byId = new Map(slots.map((s) => [s.toolCallId, s]));
  for (const call of calls) {
    const slot = byId.get(call.id);
    if (slot?.pending) {
      return slot.pending;
    }
  }
  return undefined;
}

export function halted(state: RunState, pending: NonNullable<RunResult["pending"]>): RunResult {
  return result(state, "pending", { pending });
}

/** Runs turns until the model stops calling tools, a limit is hit, or a call suspends. */
export async function runTurns(
  config: LoopConfig,
  state: RunState,
  { toolkit, signal }: RunWith,
): Promise<RunResult> {
  let callIds: Set<string> | undefined;
  while (true) {
    if (state.turns >= config.maxTurns) {
      return result(state, "incomplete", { limit: "maxTurns" });
    }
    // Awaited only when there is one: the hot path stays as it was.
    const limit = config.limitBefore ? await config.limitBefore(state) : undefined;
    if (limit) {
      return result(state, "incomplete", { limit });
    }
    signal?.throwIfAborted();

    let messages = state.messages;
    let tools = toolkit.tools();
    // Hooks and checkpoints are awaited only when present: each await is a microtask turn.
    const beforeLLM = config.hooks.beforeLLM;
    if (beforeLLM) {
      const changed = await beforeLLM({ messages, tools, model: config.model, turn: state.turns });
      if (changed?.messages) {
        messages = changed.messages;
      }
      if (changed?.tools) {
        tools = changed.tools;
      }
    }

    let streamed = false;
    const onText = (delta: string) => {
      streamed = true;
      config.emit?.({ type: "text", delta });
      config.onText?.(delta);
    };
    const turn = await config.callModel(
      {
        model: config.model,
        messages,
        tools,
        ...(config.requestParams ? { params: config.requestParams } : {}),
      },
      { signal, turn: state.turns, onText: config.stream ? onText : undefined },
    );
    callIds ??= knownCallIds(state.messages);
    uniqueCallIds(turn.toolCalls, callIds);
    state.turns += 1;
    state.model = turn.model || state.model;
    addUsage(state.usage, turn.usage);
    config.emit?.({ type: "usage", usage: turn.usage });
    if (config.hooks.afterLLM) {
      await config.hooks.afterLLM({ response: turn, model: config.model, turn: state.turns - 1 });
    }

    // Text already emitted as deltas is not emitted again.
    if (turn.content && !streamed) {
      config.emit?.({ type: "text", delta: turn.content });
      config.onText?.(turn.content);
    }
    state.messages.push({
      role: "assistant",
      content: turn.content,
      ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {}),
    });

    if (config.checkpoint) {
      await config.checkpoint(state);
    }

    if (turn.toolCalls.length === 0) {
      if (turn.finishReason === "length" || turn.finishReason === "content_filter") {
        return result(state, "incomplete", { limit: turn.finishReason });
      }
      return result(state, "done");
    }

    const env = callEnv(config, state, {
      toolkit,
      turn: state.turns - 1,
      signal,
      calls: turn.toolCalls,
    });
    const slots = await Promise.all(
      turn.toolCalls.map((call) => checkpointed(config, state, executeCall(call, env))),
    );
    state.messages.push(...slots);
    if (config.checkpoint) {
      await config.checkpoint(state);
    }
    const pending = firstPending(turn.toolCalls, slots);
    if (pending) {
      return halted(state, pending);
    }
  }
}

function result(
  state: RunState,
  status: RunResult["status"],
  extra: Partial<RunResult> = {},
): RunResult {
  const lastAssistant = state.messages.findLast((m) => m.role === "assistant");
  const text = lastAssistant?.role === "assistant" ? (lastAssistant.content ?? "") : "";
  return {
    runId: state.runId,
    text: status === "pending" ? "" : text,
    messages: state.messages,
    toolCalls: state.toolCalls,
    toolCallCount: state.toolCalls.length,
    turns: state.turns,
    usage: state.usage,
    model: state.model,
    status,
    ...extra,
  };
}

/**
 * Some providers number calls per turn ("call_0" every time). Call ids key tool
 * results, approval requests and idempotency, so a repeat within the transcript
 * is replaced by a fresh id before anything uses it.
 */
function uniqueCallIds(calls: ToolCall[], seen: Set<string>): void {
  for (const call of calls) {
    if (seen.has(call.id)) {
      call.id = newCallId();
    }
    seen.add(call.id);
  }
}

function knownCallIds(messages: Message[]): Set<string> {
  const seen = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") {
      for (const c of m.toolCalls ?? []) {
        seen.add(c.id);
      }
    }
  }
  return seen;
}
