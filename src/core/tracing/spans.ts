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

export function chatSpan(
  settings: SegmentSettings,
  parent: ContextLike,
  request: ModelRequest,
  turn: number,
  since: number,
  until: number,
  reply: ModelTurn | undefined,
  error: unknown,
): void {
  const { options } = settings;
  const attributes: Attributes = {
    [GEN_AI.operation]: OPERATION.chat,
    [GEN_AI.provider]: settings.provider,
    [GEN_AI.requestModel]: request.model,
    [GEN_AI.serverAddress]: settings.serverAddress,
    [GEN_AI.conversationId]: options.conversationId,
    [TOOLNEXUS.turn]: turn,
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
    { kind: SPAN_KIND.CLIENT, startTime: since, attributes },
    parent,
  );
  if (error !== undefined) {
    markError(span, error);
  }
  span.end(until);
}

export function toolSpan(
  settings: SegmentSettings,
  parent: ContextLike,
  name: string,
  args: unknown,
  callId: string | undefined,
  toolkit: Toolkit,
  since: number,
  until: number,
  result: ToolResult,
): void {
  const { options } = settings;
  const attributes: Attributes = {
    [GEN_AI.operation]: OPERATION.executeTool,
    [GEN_AI.toolName]: name,
    [GEN_AI.toolCallId]: callId,
    [GEN_AI.toolType]: "function",
    [GEN_AI.conversationId]: options.conversationId,
    [TOOLNEXUS.toolSource]: toolkit.get(name)?.source,
  };
  if (result.isError) {
    attributes[GEN_AI.errorType] = "tool_error";
  }
  if (options.recordContent) {
    attributes[GEN_AI.toolArguments] = capped(safeJson(args));
    attributes[GEN_AI.toolResult] = capped(result.output);
  }
  const span = settings.tracer.startSpan(
    `${OPERATION.executeTool} ${name}`,
    { kind: SPAN_KIND.INTERNAL, startTime: since, attributes },
    parent,
  );
  if (result.isError) {
    span.setStatus({ code: STATUS.ERROR, message: capped(result.output.slice(0, 200)) });
  }
  span.end(until);
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
