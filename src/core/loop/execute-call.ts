/**
 * One tool call under the suspension rule (docs/architecture.md §3, points 1, 4, 6).
 * Returns the tool message that fills the call's slot in the transcript: a
 * resolved result, or a placeholder carrying `pending` when the run must halt.
 */
import type {
  Answer,
  Message,
  RefusalText,
  Request,
  ToolCall,
  ToolCallRecord,
  ToolResult,
  WaitFor,
} from "../types";
import type { Toolkit } from "../toolkit";
import type { Hooks } from "../hooks";
import type { MetricEvent } from "../metrics";
import type { Emit } from "../events";
import { pendingOf } from "../answers";
import {
  alsoPendingOf,
  declinedResult,
  isContinuation,
  MAX_CONTINUATIONS,
  runsOnRefusal,
  unresolvedResult,
} from "../suspension";
import { errorMessage } from "../errors";
import { editedArgs, isMigrated } from "./edited-args";
import { boundToolOutput } from "./tool-output";

export type ToolMessage = Extract<Message, { role: "tool" }>;

export interface CallEnv {
  toolkit: Toolkit;
  hooks: Hooks;
  waitFor?: WaitFor;
  /** Replaces the contract's `declined/expired: <prompt>` text of a refusal. */
  refusalText?: RefusalText;
  runId: string;
  turn: number;
  /** Each call's `ctx.callOrdinal`, by call id (run-loop.ts). */
  ordinals?: Map<string, number>;
  signal?: AbortSignal;
  metric(event: MetricEvent): void;
  /** Absent when nobody listens: events are then not even built. */
  emit?: Emit;
  /** Every resolved call is recorded here for `RunResult.toolCalls`, with its whole output. */
  record(entry: ToolCallRecord): void;
  /** The tool's `source` label for metrics. */
  sourceOf(name: string): string;
  /** The most UTF-8 bytes of the named tool's output the model is sent (tool-output.ts). */
  maxOutputBytes(name: string): number;
}

/** Parses the model's argument text. Not JSON ⇒ an error the model can read and fix. */
export function parseCallArguments(
  call: ToolCall,
): { ok: true; args: unknown } | { ok: false; result: ToolResult } {
  const text = call.arguments.trim() === "" ? "{}" : call.arguments;
  try {
    return { ok: true, args: JSON.parse(text) };
  } catch (error) {
    return {
      ok: false,
      result: {
        output: `invalid arguments for ${call.name}: not valid JSON (${errorMessage(error)}): ${call.arguments.slice(0, 200)}`,
        isError: true,
      },
    };
  }
}

/** Runs a call for the first time (or for the first time after a crash). */
export async function executeCall(call: ToolCall, env: CallEnv): Promise<ToolMessage> {
  const parsed = parseCallArguments(call);
  env.emit?.({
    type: "tool_call",
    id: call.id,
    name: call.name,
    args: parsed.ok ? parsed.args : call.arguments,
  });
  if (!parsed.ok) {
    return finish(call, env, { args: call.arguments, result: parsed.result, ms: 0 });
  }

  const attempt = await invoke(call, env, { args: parsed.args, answer: undefined });
  const request = pendingOf(attempt.result);
  if (!request) {
    return finish(call, env, { ...attempt, result: policyRefusal(attempt.result, env) });
  }

  metricFor(call, env, { isError: false, ms: attempt.ms, pending: true });
  env.emit?.({ type: "pending", request, id: call.id });
  if (!env.waitFor) {
    const also = alsoPendingOf(attempt.result);
    for (const other of also) {
      env.emit?.({ type: "pending", request: other, id: call.id });
    }
    return placeholder(call, { request, also });
  }

  // Inline, the first is asked; the tool asks the others as its next steps (CONTINUES).
  const answer = await env.waitFor(request);
  return resolveWithAnswer(call, env, { request, answer });
}

/**
 * Rule 1: an `ok` answer re-executes the same call once more with `ctx.answer`
 * (a second suspension ⇒ `unresolved`, unless the tool marks it as the call's next step:
 * ../suspension CONTINUES); a refusal feeds `declined/expired` and the tool does not run
 * again, unless its request asks to hear refusals (../suspension RUN_ON_REFUSAL).
 */
export async function resolveWithAnswer(
  call: ToolCall,
  env: CallEnv,
  {
    request,
    answer,
    continuations = 0,
    others = [],
  }: {
    request: Request;
    answer: Answer;
    continuations?: number;
    /** The call's other requests, open beside `request` (alsoPending): not announced again. */
    others?: Request[];
  },
): Promise<ToolMessage> {
  const parsed = parseCallArguments(call);
  const args = parsed.ok ? parsed.args : call.arguments;
  if (answer.id !== request.id) {
    const result = {
      output: `answer ${JSON.stringify(answer.id)} does not match request ${JSON.stringify(request.id)}`,
      isError: true,
    };
    return finish(call, env, { args, result, ms: 0 });
  }
  if (!answer.ok && !runsOnRefusal(request)) {
    return finish(call, env, { args, result: refusal(request, answer, env), ms: 0 });
  }
  if (!parsed.ok) {
    return finish(call, env, { args, result: parsed.result, ms: 0 });
  }

  const edited = answer.ok ? editedArgs(request, answer, parsed.args) : undefined;
  const attempt = await invoke(call, env, { args: edited ?? parsed.args, answer, request });
  const again = pendingOf(attempt.result);
  if (again && isContinuation(attempt.result)) {
    const also = alsoPendingOf(attempt.result);
    return continueSuspended(call, env, {
      requests: [again, ...also],
      announced: new Set(others.map((r) => r.id)),
      ms: attempt.ms,
      continuations,
    });
  }
  let result = again ? unresolvedResult(again) : attempt.result;
  if (!answer.ok) {
    // The tool was told of the refusal (RUN_ON_REFUSAL); the model hears both.
    const refused = refusal(request, answer, env);
    result = { ...refused, output: [refused.output, result.output].filter(Boolean).join("\n") };
  }
  if (edited && !again) {
    // The model asked for other arguments: it must hear what actually ran, and who changed
    // them (an approver's edit, or a host's migration of a call suspended under an older
    // version of its tool: nobody edited those).
    const why = isMigrated(answer)
      ? "the arguments were migrated to the tool's current version:"
      : "the approver changed the arguments to";
    result = { ...result, output: `${why} ${JSON.stringify(edited)}\n${result.output}` };
  }
  return finish(call, env, { ...attempt, result });
}

/**
 * The call took its answer and asks its next question (CONTINUES): durably it stays
 * suspended on the new request; inline the host's `waitFor` answers it, at most
 * MAX_CONTINUATIONS times in a row.
 */
async function continueSuspended(
  call: ToolCall,
  env: CallEnv,
  {
    requests,
    announced,
    ms,
    continuations,
  }: { requests: Request[]; announced: Set<string>; ms: number; continuations: number },
): Promise<ToolMessage> {
  const [request, ...also] = requests as [Request, ...Request[]];
  if (env.waitFor && continuations >= MAX_CONTINUATIONS) {
    const args = parseCallArguments(call);
    const result = unresolvedResult(request);
    return finish(call, env, { args: args.ok ? args.args : call.arguments, result, ms });
  }
  metricFor(call, env, { isError: false, ms, pending: true });
  // A request the call was already open on (same id) was announced when it opened.
  for (const open of env.waitFor ? [request] : requests) {
    if (!announced.has(open.id)) {
      env.emit?.({ type: "pending", request: open, id: call.id });
    }
  }
  if (!env.waitFor) {
    return placeholder(call, { request, also });
  }
  const answer = await env.waitFor(request);
  return resolveWithAnswer(call, env, { request, answer, continuations: continuations + 1 });
}

function refusal(request: Request, answer: Answer, env: CallEnv): ToolResult {
  const result = declinedResult(request, answer.reason);
  return env.refusalText ? { ...result, output: env.refusalText(request, answer) } : result;
}

/** A gate's policy refusal reads like any refusal, so a host's `refusalText` covers it too. */
function policyRefusal(result: ToolResult, env: CallEnv): ToolResult {
  const policy = result.metadata?.policy;
  if (!env.refusalText || !policy || typeof policy !== "object") {
    return result;
  }
  const { request, answer } = policy as { request?: Request; answer?: Answer };
  if (!request || !answer || answer.ok) {
    return result;
  }
  return { ...result, output: env.refusalText(request, answer) };
}

/** A call that ran (or was refused before it could): the arguments it had, its result, how long it took. */
interface Ran {
  args: unknown;
  result: ToolResult;
  ms: number;
  /** The tool produced the result (not the loop's own refusal): its metadata is recorded. */
  ran?: true;
}

async function invoke(
  call: ToolCall,
  env: CallEnv,
  { args, answer, request }: { args: unknown; answer: Answer | undefined; request?: Request },
): Promise<Ran> {
  const started = Date.now();
  let effectiveArgs = args;
  try {
    // Hooks are awaited only when present: every await costs a turn of the microtask queue.
    const beforeTool = env.hooks.beforeTool;
    if (beforeTool) {
      const hooked = await beforeTool({
        name: call.name,
        args,
        id: call.id,
        turn: env.turn,
        ...(answer ? { answer } : {}),
      });
      if (hooked?.args !== undefined) {
        effectiveArgs = hooked.args;
      }
      if (hooked?.result) {
        return { args: effectiveArgs, result: hooked.result, ms: Date.now() - started, ran: true };
      }
    }
    const ordinal = env.ordinals?.get(call.id);
    const result = await env.toolkit.execute(call.name, effectiveArgs, {
      signal: env.signal,
      callId: call.id,
      runId: env.runId,
      ...(ordinal === undefined ? {} : { callOrdinal: ordinal }),
      ...(answer ? { answer } : {}),
      ...(answer && request ? { answered: request } : {}),
      ...(env.waitFor ? { waitFor: askedDuringCall(call, env, env.waitFor) } : {}),
    });
    return { args: effectiveArgs, result, ms: Date.now() - started, ran: true };
  } catch (error) {
    return {
      args: effectiveArgs,
      result: { output: `${call.name} failed: ${errorMessage(error)}`, isError: true },
      ms: Date.now() - started,
    };
  }
}

/** A question a tool asks mid-call goes to the host's `waitFor`, announced like any request. */
function askedDuringCall(call: ToolCall, env: CallEnv, waitFor: WaitFor): WaitFor {
  return (request) => {
    env.emit?.({ type: "pending", request, id: call.id });
    return waitFor(request);
  };
}

/** Applies `afterTool` (awaited only when there is one) and closes the call: metric, record, event, message. */
function finish(call: ToolCall, env: CallEnv, ran: Ran): ToolMessage | Promise<ToolMessage> {
  const afterTool = env.hooks.afterTool;
  if (!afterTool) {
    return close(call, env, ran);
  }
  const { args, result } = ran;
  return (async () => {
    let final = result;
    try {
      const hooked = await afterTool({
        name: call.name,
        args,
        result,
        id: call.id,
        turn: env.turn,
      });
      if (hooked?.result) {
        final = hooked.result;
      }
    } catch (error) {
      final = {
        output: `afterTool hook failed for ${call.name}: ${errorMessage(error)}`,
        isError: true,
      };
    }
    return close(call, env, { ...ran, result: final });
  })();
}

/**
 * Closes a resolved call. The bound on what the model is sent applies here, last: after
 * `afterTool` (which sees, and may shorten, the whole output), to the result as it will be
 * fed back. The record keeps the whole output; the event and the message carry what the
 * model gets, with `truncated` on the event. A suspension never gets here (its placeholder
 * is not a result), so a pending call is never cut.
 */
function close(call: ToolCall, env: CallEnv, { args, result: final, ms, ran }: Ran): ToolMessage {
  metricFor(call, env, { isError: final.isError, ms, pending: false });
  const sent = boundToolOutput(final.output, env.maxOutputBytes(call.name));
  const truncated = sent.truncated ? { truncated: sent.truncated } : {};
  env.record({
    id: call.id,
    name: call.name,
    args,
    output: final.output,
    isError: final.isError,
    ...(ran && final.metadata ? { metadata: final.metadata } : {}),
    ...truncated,
    // The handle a later undo needs: a call that completed, of a tool that can take it back.
    ...(ran && !final.isError && env.toolkit.get(call.name)?.compensate
      ? { compensable: true as const }
      : {}),
  });
  env.emit?.({
    type: "tool_result",
    id: call.id,
    name: call.name,
    output: sent.text,
    isError: final.isError,
    ...(final.metadata ? { metadata: final.metadata } : {}),
    ...truncated,
  });
  const reason = final.metadata?.reason;
  return {
    role: "tool",
    toolCallId: call.id,
    name: call.name,
    content: sent.text,
    ...(final.isError ? { isError: true } : {}),
    ...(typeof reason === "string" ? { reason } : {}),
  };
}

function placeholder(
  call: ToolCall,
  { request, also }: { request: Request; also: Request[] },
): ToolMessage {
  return {
    role: "tool",
    toolCallId: call.id,
    name: call.name,
    content: `pending: ${request.prompt}`,
    pending: request,
    ...(also.length > 0 ? { alsoPending: also } : {}),
  };
}

/** A suspension is not a tool error (docs/architecture.md §3, rule 4): `isError` is false while pending. */
function metricFor(
  call: ToolCall,
  env: CallEnv,
  { isError, ms, pending }: { isError: boolean; ms: number; pending: boolean },
): void {
  const source = env.sourceOf(call.name);
  env.metric({
    type: "tool_call",
    tool: call.name,
    source,
    isError: pending ? false : isError,
    pending,
    durationMs: ms,
  });
}
