/**
 * One traced run segment (docs/observability.md, "Traces and the run timeline"). A run that halts and resumes is several segments
 * in several processes: each is an `invoke_agent` span, the first one the run span (the
 * root of the trace unless the caller's context had a span), every later one its child by
 * the `traceparent` the halted result carries. Their model calls (`chat`) and tool
 * executions (`execute_tool`) are children of the segment; each wait for a decision
 * (`await_decision`) is a child of the run span and spans halt → answer.
 *
 * Nothing in the loop knows about tracing: a segment wraps what the loop already calls —
 * the model caller, `waitFor`, the event sink — and the toolkit, whose `execute` is the
 * one place that sees a tool really run (a call the gate suspends or a person declines
 * never reaches the tool, so it gets no `execute_tool` span).
 */
import type { Answer, Message, Request, RunResult, ToolResult, Usage } from "../types";
import type { Toolkit } from "../toolkit";
import type { LoopConfig } from "../loop/run-loop";
import type { RunEvent } from "../events";
import { SPAN_KIND } from "./otel-shapes";
import { GEN_AI, TOOLNEXUS } from "./conventions";
import type { TraceCarrier } from "./options";
import { contextWithRemoteParent, contextWithSpan } from "./context";
import { formatTraceparent, parseTraceparent } from "./traceparent";
import { recordWait } from "./wait-span";
import { chatSpan, markError, toolSpan, type SegmentSettings } from "./spans";
import type { SegmentStarts } from "./segment-start";
import type { SpanLike } from "./otel-shapes";

export type { SegmentSettings } from "./spans";

/** What a resumed or continued segment starts from: the halted result spread in, plus who decided. */
export interface SegmentStart {
  trace?: TraceCarrier;
  pending?: Request;
  answer?: Answer;
  decidedBy?: string;
  channel?: string;
  history?: Message[];
  messages?: Message[];
  usage?: Usage;
}

export interface RunSegment {
  /** The loop config with the traced model caller, `waitFor` and event sink. */
  readonly config: LoopConfig;
  /** The toolkit whose `execute` records `execute_tool` spans. */
  toolkit(toolkit: Toolkit): Toolkit;
  /** Ends the segment and leaves the trace context on the result (`result.trace`). */
  end(result: RunResult): void;
  fail(error: unknown): void;
}

const same = (toolkit: Toolkit): Toolkit => toolkit;

/**
 * A segment whose span does not record. With an invalid context (a no-op tracer, or
 * `trace.getTracer()` before any provider) nothing downstream could record or propagate;
 * with a valid one (a sampler said no) the SDK's default parent-based sampling would drop
 * every child too. Either way it wraps nothing (no child span, attribute, context or clock
 * read per call) and the trace goes on through the result only: a carried context (with
 * its open waits) untouched, else the span's own when valid, so the next segment stays in
 * the same trace. A class, not closures: a run with a no-op tracer allocates this one
 * object besides the tracer's span (test/core/tracing-fast-path.test.ts counts the calls).
 */
class UnrecordedSegment implements RunSegment {
  readonly toolkit = same;
  constructor(
    readonly config: LoopConfig,
    private readonly span: SpanLike,
    private readonly from: SegmentStart | undefined,
  ) {}
  end(result: RunResult): void {
    const carried = this.from?.trace;
    if (carried && parseTraceparent(carried.traceparent)) {
      result.trace = carried;
    } else {
      const traceparent = formatTraceparent(this.span.spanContext());
      if (traceparent) {
        result.trace = { traceparent };
      }
    }
    this.span.end();
  }
  fail(): void {
    this.span.end();
  }
}

/** What every segment of one client shares: its settings, and its run spans' start (built once). */
export interface SegmentSource {
  settings: SegmentSettings;
  starts: SegmentStarts;
}

export function beginSegment(
  { settings, starts }: SegmentSource,
  plain: LoopConfig,
  from: SegmentStart | undefined,
): RunSegment {
  const { tracer, options } = settings;
  const now = options.now ?? Date.now;
  const started = now();
  const carried = from?.trace ? parseTraceparent(from.trace.traceparent) : undefined;
  const segment = tracer.startSpan(
    starts.name,
    {
      kind: SPAN_KIND.INTERNAL,
      startTime: started,
      attributes: starts.attributes(
        plain.model,
        from === undefined ? "start" : from.answer ? "resume" : "continue",
      ),
    },
    // Without a carried context the caller's active one is the parent: the tracer reads it
    // (the one `context.active()` of a run); every span below gets its parent explicitly.
    carried ? contextWithRemoteParent(carried) : undefined,
  );
  if (!segment.isRecording()) {
    return new UnrecordedSegment(plain, segment, from);
  }

  const runContext = carried ?? segment.spanContext();
  const carrier = (waiting: Map<string, number>): TraceCarrier | undefined => {
    const traceparent = formatTraceparent(runContext);
    if (!traceparent) {
      return undefined;
    }
    const tracestate = from?.trace?.tracestate ?? runContext.traceState?.serialize();
    return {
      traceparent,
      ...(tracestate ? { tracestate } : {}),
      ...(waiting.size ? { waiting: Object.fromEntries(waiting) } : {}),
    };
  };
  const waiting = carriedWaits(from?.trace);

  const segmentContext = contextWithSpan(segment);
  const runParent = carried ? contextWithRemoteParent(carried) : segmentContext;
  /** Suspended calls seen in this segment: the request's tool and call id. */
  const suspendedCalls = new Map<string, { tool: string; callId?: string }>();

  const closeWait = (request: Request, answer: Answer | undefined, who?: SegmentStart) => {
    const since = waiting.get(request.id) ?? started;
    waiting.delete(request.id);
    const call = suspendedCalls.get(request.id) ?? callOf(from, request.id);
    recordWait(settings, runParent, {
      request,
      ...(answer ? { answer } : {}),
      since,
      until: now(),
      ...(call ? { tool: call.tool, callId: call.callId } : {}),
      ...(who?.decidedBy !== undefined ? { decidedBy: who.decidedBy } : {}),
      ...(who?.channel !== undefined ? { channel: who.channel } : {}),
    });
  };
  if (from?.pending && from.answer) {
    closeWait(from.pending, from.answer, from);
  }

  const onEvent = (event: RunEvent) => {
    if (event.type === "pending" && !waiting.has(event.request.id)) {
      waiting.set(event.request.id, now());
    }
  };
  const emit = plain.emit;
  const waitFor = plain.waitFor;
  const config: LoopConfig = {
    ...plain,
    callModel: async (request, call) => {
      const since = now();
      try {
        const reply = await plain.callModel(request, call);
        chatSpan(settings, segmentContext, {
          request,
          turn: call.turn,
          since,
          until: now(),
          reply,
        });
        return reply;
      } catch (error) {
        chatSpan(settings, segmentContext, {
          request,
          turn: call.turn,
          since,
          until: now(),
          error,
        });
        throw error;
      }
    },
    emit: emit
      ? (event) => {
          onEvent(event);
          emit(event);
        }
      : onEvent,
    ...(waitFor
      ? {
          waitFor: async (request: Request) => {
            try {
              const answer = await waitFor(request);
              closeWait(request, answer);
              return answer;
            } catch (error) {
              closeWait(request, undefined);
              throw error;
            }
          },
        }
      : {}),
  };

  // The run's trace context, handed to tools that pass it on (an MCP request's `_meta`).
  const runTraceparent = formatTraceparent(runContext);
  const toolkit = (inner: Toolkit): Toolkit => {
    const traced: Toolkit = Object.create(inner);
    traced.execute = async (name, args, ctx) => {
      const t0 = now();
      const result = await inner.execute(
        name,
        args,
        runTraceparent ? { ...ctx, traceparent: runTraceparent } : ctx,
      );
      const request = result.metadata?.pending;
      if (request && typeof request === "object" && typeof request.id === "string") {
        suspendedCalls.set(request.id, {
          tool: name,
          ...(ctx?.callId ? { callId: ctx.callId } : {}),
        });
        return result; // a suspension is not an execution
      }
      const policy = policyDecision(result);
      if (policy) {
        recordWait(settings, segmentContext, {
          request: policy.request,
          answer: policy.answer,
          since: t0,
          until: now(),
          tool: name,
          ...(ctx?.callId ? { callId: ctx.callId } : {}),
          channel: "policy",
        });
        if (!policy.answer.ok) {
          return result; // the gate refused: the tool never ran
        }
      }
      toolSpan(settings, segmentContext, {
        name,
        args,
        callId: ctx?.callId,
        toolkit: inner,
        since: t0,
        until: now(),
        result,
      });
      return result;
    };
    return traced;
  };

  return {
    config,
    toolkit,
    end(result) {
      const base = from?.usage;
      segment.setAttributes({
        [TOOLNEXUS.runId]: result.runId,
        [TOOLNEXUS.runStatus]: result.status,
        [TOOLNEXUS.turns]: result.turns,
        [TOOLNEXUS.limit]: result.limit,
        [TOOLNEXUS.pendingRequest]: result.pending?.id,
        [GEN_AI.responseModel]: result.model,
        [GEN_AI.inputTokens]: result.usage.promptTokens - (base?.promptTokens ?? 0),
        [GEN_AI.outputTokens]: result.usage.completionTokens - (base?.completionTokens ?? 0),
      });
      const trace = carrier(result.status === "pending" ? waiting : new Map());
      if (trace) {
        result.trace = trace;
      }
      segment.end(now());
    },
    fail(error) {
      markError(segment, error);
      segment.end(now());
    },
  };
}

/** A gate's policy decision (`requireApproval({ policy })` leaves it on the result). */
function policyDecision(result: ToolResult): { request: Request; answer: Answer } | undefined {
  const policy = result.metadata?.policy as { request?: Request; answer?: Answer } | undefined;
  return policy?.request && policy.answer
    ? { request: policy.request, answer: policy.answer }
    : undefined;
}

function carriedWaits(trace: TraceCarrier | undefined): Map<string, number> {
  const waits = new Map<string, number>();
  const given = trace?.waiting;
  if (given && typeof given === "object") {
    for (const [id, at] of Object.entries(given)) {
      if (typeof at === "number" && Number.isFinite(at)) {
        waits.set(id, at);
      }
    }
  }
  return waits;
}

/** The suspended call in a halted transcript: its tool name and call id. */
function callOf(
  from: SegmentStart | undefined,
  requestId: string,
): { tool: string; callId: string } | undefined {
  const messages = from?.history ?? from?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "tool" && m.pending?.id === requestId) {
      return { tool: m.name, callId: m.toolCallId };
    }
  }
  return undefined;
}
