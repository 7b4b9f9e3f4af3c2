/**
 * The toolnexus agent contract: the types every other module is written against.
 * Wire types (`Request`, `Answer`) cross process boundaries; their JSON keys are fixed.
 */
import type { EnvLike } from "./env";
import type { ZodType } from "zod";
import type { TraceCarrier } from "./tracing/options";

/** A question a suspended tool puts to a person or a policy. `kind` is open. */
export interface Request {
  id: string;
  kind: "authorization" | "approval" | "input" | "question" | "tool_call" | (string & {});
  prompt: string;
  url?: string;
  data?: Record<string, unknown>;
  /** RFC 3339. */
  expiresAt?: string;
}

/** The reply to a `Request`; `id` echoes `Request.id`. `reason` only when `ok` is false. */
export interface Answer {
  id: string;
  ok: boolean;
  data?: unknown;
  reason?: string;
}

export interface ToolResult {
  output: string;
  isError: boolean;
  metadata?: { pending?: Request; [key: string]: unknown };
}

export interface Context {
  signal?: AbortSignal;
  /** Milliseconds the tool may take. */
  timeout?: number;
  /** Set only on the re-execution that follows a resolved suspension. */
  answer?: Answer;
  /**
   * Set with `answer`: the request it answers, as the call suspended with it (stored with the
   * halted run, so it survives a halt, an eviction and a redeploy). A tool that kept state of
   * its own in `data` (an MCP server's `requestState`) reads it back here.
   */
  answered?: Request;
  /** The run's W3C `traceparent` when the run is traced: a tool that calls out may pass it on. */
  traceparent?: string;
  /** Stable across the first execution and the post-answer re-execution: an idempotency key. */
  callId?: string;
  runId?: string;
  /**
   * Among the calls of this call's turn to the same tool, how many came before it (0 for the
   * first), in the order the model made them: the same on every replay of the turn. The `task`
   * tool caps children per turn with it.
   */
  callOrdinal?: number;
  /** Environment (Workers bindings or process env) handed down by the toolkit. */
  env?: EnvLike;
  /**
   * Set where the host can wait durably (the edge): a tool waiting on something slow (a
   * remote A2A task) may suspend with a request after this many milliseconds instead of
   * waiting inline, and the host answers the request when the wait is over.
   */
  suspendAfterMs?: number;
  /**
   * Set by a loop whose host answers requests inline (a client `waitFor`): a tool that meets
   * a person's question in the middle of its work (an MCP server's elicitation) asks it here,
   * and the loop emits `pending` for it like for any request. Absent ⇒ the tool suspends.
   */
  waitFor?: WaitFor;
}
export type ToolContext = Context;

/** A JSON-Schema object (draft 2020-12 subset as providers accept it). */
export type JsonSchema = Record<string, unknown>;

export interface Tool {
  name: string;
  description: string;
  /** Always a JSON-Schema object by the time it is in a toolkit. */
  inputSchema: JsonSchema;
  /** Where the tool came from: "native", "http", "relay", "mcp:<server>", … */
  source: string;
  /** `ctx` is optional (SPEC §1): a tool called directly, outside a toolkit, gets none. */
  execute(args: unknown, ctx?: Context): Promise<ToolResult>;
  /**
   * The most UTF-8 bytes of this tool's output the model is sent; the client's
   * `maxToolOutputBytes` when absent. A longer output reaches the model cut, with a line
   * that says so; `RunResult.toolCalls` keeps it whole.
   */
  maxOutputBytes?: number;
  /**
   * Takes back what a completed call did (a saga's compensating step): asked with the call's
   * arguments and result by `client.compensate` (and at the edge by an undo), in reverse order,
   * once per call. An error result or a throw is a failure, retried then reported
   * (src/core/compensation, docs/undo.md).
   */
  compensate?(args: unknown, result: ToolResult, ctx: CompensationContext): Promise<ToolResult>;
}

/** What a compensation is told: the call it takes back, why, and which attempt this is. */
export interface CompensationContext extends Context {
  /** The compensated call's id (stable across attempts: an idempotency key). */
  callId: string;
  /** Why the run is undone ("wrong order", "run failed"). */
  reason: string;
  /** 1 for the first attempt. */
  attempt: number;
}

/** What became of one call when its run was compensated. */
export interface CompensationRecord {
  callId: string;
  tool: string;
  /** `not_compensable`: the call completed but its tool has no `compensate`. */
  status: "ran" | "failed" | "not_compensable";
  /** The compensation's output (`ran`), or why it failed. */
  output?: string;
  error?: string;
}

export type InputSchema = ZodType | JsonSchema;

/** One function call requested by the model. `arguments` is the raw JSON text the model sent. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The provider-neutral transcript. Each wire style converts it to its own shape.
 * A `tool` message that carries `pending` is the placeholder of a suspended call:
 * the transcript stays balanced, and resume replaces it.
 */
export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ToolCall[] }
  | {
      role: "tool";
      toolCallId: string;
      name: string;
      content: string;
      isError?: boolean;
      /** Set on a placeholder: the request this call is suspended on. */
      pending?: Request;
      /**
       * Set on a placeholder beside `pending`: the call's other requests, open at the same time
       * and answered in any order (../suspension ALSO_PENDING). Absent for one request.
       */
      alsoPending?: Request[];
      /** Why a request was refused ("declined", "expired", "policy: …"); never sent to a provider. */
      reason?: string;
    };

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** One resolved call of a run, as `RunResult.toolCalls` lists it. */
export interface ToolCallRecord {
  id: string;
  name: string;
  args: unknown;
  /** The tool's whole output (the model may have been sent less: see `truncated`). */
  output: string;
  isError: boolean;
  /** Present when the model was sent only the first `shown` of the output's `total` UTF-8 bytes. */
  truncated?: { total: number; shown: number };
  /** What the tool's result carried, when it carried any (e.g. an agent-as-tool's `pending`/`path`; issue 40). */
  metadata?: Record<string, unknown>;
  /**
   * The call completed and its tool can take it back (`Tool.compensate`): this record (its
   * tool name, arguments and output) is the compensation's handle.
   */
  compensable?: true;
}

export type RunStatus = "done" | "pending" | "incomplete";

export interface RunResult {
  text: string;
  messages: Message[];
  /**
   * Every resolved call with its whole output and the metadata its result carried; `truncated` when the model was sent only the
   * first `shown` of its `total` UTF-8 bytes (`maxToolOutputBytes`).
   */
  toolCalls: ToolCallRecord[];
  toolCallCount: number;
  turns: number;
  usage: Usage;
  model: string;
  status: RunStatus;
  /** Why a run is `incomplete`: "maxTurns" (SPEC §10 spelling), "length", "content_filter". */
  limit?: string;
  /** The request a halted (`pending`) run waits on. */
  pending?: Request;
  /** Identifies the run across a durable halt; used as `Context.runId`. */
  runId: string;
  /** With a `tracer`: the run span's W3C trace context, so a resume continues the same trace. */
  trace?: TraceCarrier;
  /** What `client.compensate` did, one entry per call it took back (or could not): each call once. */
  compensations?: CompensationRecord[];
}

export type WaitFor = (request: Request) => Promise<Answer> | Answer;

/** The tool-result text a refused request feeds the model (see `ClientOptions.refusalText`). */
export type RefusalText = (request: Request, answer: Answer) => string;
