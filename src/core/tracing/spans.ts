/**
 * The leaf spans of a segment, built when their work has finished (start time given): a
 * model call (`chat {model}`) and a tool execution (`execute_tool {tool}`), plus how a
 * failure is marked on any span (`error.type`, status, exception event).
 */
import type { ToolResult } from "../types";
import type { Toolkit } from "../toolkit";
import type { ModelRequest, ModelTurn } from "../providers/model";
import { ProviderError } from "../errors";
import type { Attributes, ContextLike, SpanLike, TracerLike } from "./otel-shapes";
import { SPAN_KIND, STATUS } from "./otel-shapes";
import { GEN_AI, OPERATION, TOOLNEXUS } from "./conventions";
import type { TracingOptions } from "./options";
import { capped, inputMessages, outputMessages } from "./content";

export interface SegmentSettings {
  tracer: TracerLike;
  options: TracingOptions;
  provider: string;
  serverAddress?: string;
}

/** A finished model call: its request, which turn, when, and its reply or its failure. */
export interface ChatCall {
  request: ModelRequest;
  turn: number;
  since: number;
  until: number;
  reply?: ModelTurn;
  /** What the call threw (the reply is then absent). */
  error?: unknown;
}

export function chatSpan(settings: SegmentSettings, parent: ContextLike, call: ChatCall): void {
  const { options } = settings;
  const { request, reply } = call;
  const attributes: Attributes = {
    [GEN_AI.operation]: OPERATION.chat,
    [GEN_AI.provider]: settings.provider,
    [GEN_AI.requestModel]: request.model,
    [GEN_AI.serverAddress]: settings.serverAddress,
    [GEN_AI.conversationId]: options.conversationId,
    [TOOLNEXUS.turn]: call.turn,
  };
  if (reply) {
    attributes[GEN_AI.responseModel] = reply.model || request.model;
    attributes[GEN_AI.finishReasons] = [reply.finishReason];
    attributes[GEN_AI.inputTokens] = reply.usage.promptTokens;
    attributes[GEN_AI.outputTokens] = reply.usage.completionTokens;
  }
  if (options.recordContent) {
    attributes[GEN_AI.inputMessages] = inputMessages(request.messages);
    if (reply) {
      attributes[GEN_AI.outputMessages] = outputMessages(reply);
    }
  }
  const span = settings.tracer.startSpan(
    `${OPERATION.chat} ${request.model}`,
    { kind: SPAN_KIND.CLIENT, startTime: call.since, attributes },
    parent,
  );
  if (call.error !== undefined) {
    markError(span, call.error);
  }
  span.end(call.until);
}

/** A tool that ran: which, with what, from which toolkit, when, and its result. */
export interface ToolRun {
  name: string;
  args: unknown;
  callId: string | undefined;
  /** Where the tool's `source` is read from. */
  toolkit: Toolkit;
  since: number;
  until: number;
  result: ToolResult;
}

/**
 * The span name of a call to a tool the toolkit does not have. The model chose that name
 * (`evil<script>…`): it never becomes a span name or attribute (issue 37); nothing ran.
 */
export const UNKNOWN_TOOL = "unknown_tool";

export function toolSpan(settings: SegmentSettings, parent: ContextLike, run: ToolRun): void {
  const { options } = settings;
  const { result } = run;
  const tool = run.toolkit.get(run.name);
  const name = tool ? run.name : UNKNOWN_TOOL;
  const attributes: Attributes = {
    [GEN_AI.operation]: OPERATION.executeTool,
    [GEN_AI.toolName]: tool ? name : undefined,
    [GEN_AI.toolCallId]: run.callId,
    [GEN_AI.toolType]: "function",
    [GEN_AI.conversationId]: options.conversationId,
    [TOOLNEXUS.toolSource]: tool?.source,
  };
  if (!tool) {
    attributes[GEN_AI.errorType] = UNKNOWN_TOOL;
  } else if (result.isError) {
    attributes[GEN_AI.errorType] = "tool_error";
  }
  if (options.recordContent && tool) {
    attributes[GEN_AI.toolArguments] = capped(safeJson(run.args));
    attributes[GEN_AI.toolResult] = capped(result.output);
  }
  const span = settings.tracer.startSpan(
    `${OPERATION.executeTool} ${name}`,
    { kind: SPAN_KIND.INTERNAL, startTime: run.since, attributes },
    parent,
  );
  if (!tool) {
    span.setStatus({ code: STATUS.ERROR, message: "the model called a tool the toolkit lacks" });
  } else if (result.isError) {
    span.setStatus({ code: STATUS.ERROR, message: capped(result.output.slice(0, 200)) });
  }
  span.end(run.until);
}

/** The `error.type` of a failure: the provider's HTTP status, else the error's class name. */
export function markError(span: SpanLike, error: unknown): void {
  const type =
    error instanceof ProviderError && error.status !== undefined
      ? String(error.status)
      : error instanceof Error
        ? error.name
        : "_OTHER";
  span.setAttribute(GEN_AI.errorType, type);
  span.setStatus({
    code: STATUS.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
  if (error instanceof Error) {
    span.recordException(error);
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}
