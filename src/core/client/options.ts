/**
 * The client's public shapes: the options both clients share, the per-call options and
 * the `Client` interface itself. Types only, so the two factories (`wire.ts`,
 * `in-process.ts`) and the shared entry points (`build.ts`) agree on them
 * without importing each other.
 */
import type {
  Answer,
  CompensationRecord,
  Message,
  RefusalText,
  Request,
  RunResult,
  WaitFor,
} from "../types";
import type { CompensateOptions } from "../compensation/run";
import type { Toolkit } from "../toolkit";
import type { Hooks } from "../hooks";
import type { RunEvent } from "../events";
import type { MetricEvent } from "../metrics";
import type { ConversationStore } from "./conversation-store";
import type { CallCheckpoint, LimitBefore, RunState } from "../loop/run-loop";
import type { TranslateRequest, TranslateResult } from "./translate";
import type { ContinueInput, ResumeInput } from "../loop/resume";
import type { TracedClientOptions } from "../tracing/options";

/** `tracer` / `tracing`: OpenTelemetry spans per run (docs/observability.md, "Traces and the run timeline"). */
export interface CommonClientOptions extends TracedClientOptions {
  model: string;
  systemPrompt?: string;
  maxTurns?: number;
  timeoutMs?: number;
  hooks?: Hooks;
  onMetric?: (event: MetricEvent) => void;
  waitFor?: WaitFor;
  /**
   * The text a refused request (declined, cancelled, expired, a policy's refusal) feeds the
   * model. Default: the contract's `declined/expired: <prompt>`; the edge adds a `reason:` line.
   */
  refusalText?: RefusalText;
  store?: ConversationStore;
  /**
   * Merged into every request body, winning over the client's defaults (`max_tokens`, …).
   * The members the client owns (`model`, `messages`, `system`, `tools`, `tool_choice`,
   * `stream`, `stream_options`) are dropped with a warning; `bodyTransform` may change them.
   * A run sends no `tool_choice` (the provider's default, auto); `translate({ toolChoice })` does.
   */
  requestParams?: Record<string, unknown>;
  /** Called at every turn boundary with the run's state, so a host can persist it (the edge does). */
  onCheckpoint?: (state: RunState) => Promise<void> | void;
  /**
   * Called as each tool call settles, with its result message (a suspension's placeholder
   * included), before the turn's other calls finish: persist it, and a crash mid-turn re-runs
   * only the calls without a result (`continueRun`). The edge stores one row per call here.
   */
  onCallCheckpoint?: CallCheckpoint;
  /**
   * Asked before every model call with the run's state: a limit it names (a budget shared
   * with other runs, as the edge's sub-agent trees have) stops the run `incomplete` with
   * `limit` set to that name, without calling the model.
   */
  limitBefore?: LimitBefore;
  /**
   * The most UTF-8 bytes of one tool output the model is sent (default 262144, 256 KiB;
   * `Infinity`: no bound). A longer output reaches the model as its first part, cut on a
   * character boundary, plus the line `[output truncated: <total> bytes, the first <shown>
   * shown]`; its `tool_result` event says `truncated: { total, shown }`, and
   * `RunResult.toolCalls` keeps the whole output. A tool's own `maxOutputBytes` wins.
   */
  maxToolOutputBytes?: number;
  /** Receives every run event (the same ones `stream()` yields), for every run of this client. */
  onEvent?: (event: RunEvent) => void;
  /**
   * Every entry point (`run`, `ask`, `runWithAnswer`, `continueRun`) asks the model for
   * streamed replies, so `onEvent` gets `text` deltas as they are generated rather than
   * one `text` per turn. For an in-process client text still comes whole, once per turn.
   */
  streaming?: boolean;
}

export interface RunOptions {
  toolkit: Toolkit;
  history?: Message[];
  signal?: AbortSignal;
}

export interface StreamOptions extends RunOptions {
  /** A conversation in the client's store: its transcript is the history, and the run's is saved back before `done`. */
  id?: string;
}

export interface Client {
  run(prompt: string, options: RunOptions): Promise<RunResult>;
  /**
   * The run as it happens: `text` deltas while the model writes, `tool_call`,
   * `tool_result`, `pending` (before `waitFor` is asked), `usage` per model call, and
   * `done` with the `RunResult` last. A run error ends the iteration by throwing it;
   * leaving the loop early aborts the run.
   * @example for await (const e of client.stream("Refund order 42", { toolkit })) if (e.type === "text") write(e.delta);
   */
  stream(prompt: string, options: StreamOptions): AsyncIterable<RunEvent>;
  /**
   * A run in conversation `id` (its transcript loaded from the store first and saved back
   * after); without `id` a one-shot that leaves the store alone. With `onText`, replies
   * are streamed and every text delta reaches it.
   */
  ask(
    prompt: string,
    options: {
      toolkit: Toolkit;
      id?: string;
      onText?: (delta: string) => void;
      signal?: AbortSignal;
    },
  ): Promise<RunResult>;
  runWithAnswer(input: ResumeInput): Promise<RunResult>;
  /** Carries a checkpointed run on without an answer (crash recovery); see `continueRun`. */
  continueRun(input: ContinueInput): Promise<RunResult>;
  askWithAnswer(input: {
    toolkit: Toolkit;
    id: string;
    pending: Request;
    answer: Answer;
    signal?: AbortSignal;
  }): Promise<RunResult>;
  /**
   * One model call for a caller that runs its own loop: OpenAI-format messages and tools
   * in, the reply out; tools are declared, never executed; only `beforeLLM`/`afterLLM` fire.
   * @example const { text, toolCalls, finishReason } = await client.translate({ messages, tools, toolChoice: "auto" });
   */
  translate(request: TranslateRequest): Promise<TranslateResult>;
  /**
   * Takes back what a finished or halted run did: each completed call's tool `compensate`,
   * last call first, each once (`state.compensations` records what ran, so a second call
   * runs nothing twice). A call whose tool cannot compensate is listed `not_compensable`.
   * @example const undone = await client.compensate(result, { reason: "wrong order", toolkit });
   */
  compensate(
    state: Pick<RunResult, "toolCalls" | "compensations" | "runId">,
    options: Omit<CompensateOptions, "runId" | "env"> & { toolkit: Toolkit },
  ): Promise<CompensationRecord[]>;
  metrics(): string;
  conversationStore(): ConversationStore;
  readonly model: string;
}
