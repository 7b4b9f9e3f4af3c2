/**
 * toolnexus-edge: the public API. The kernel (src/core) runs in any runtime with
 * web-standard APIs; the edge factory builds a Cloudflare Worker from agents.
 */
export type {
  Answer,
  Context,
  InputSchema,
  JsonSchema,
  Message,
  Request,
  RunResult,
  RunStatus,
  Tool,
  ToolCall,
  ToolContext,
  ToolResult,
  Usage,
  WaitFor,
} from "./core/types";
export { RequestSchema, AnswerSchema } from "./core/wire";
export { answerOutput, answerDeclined, pending, authRequired, isPending, pendingOf, newRequestId } from "./core/answers";
export type { PendingInit } from "./core/answers";
export { declinedResult, unresolvedResult } from "./core/suspension";
export { defineTool, toToolResult } from "./core/tools/define";
export type { DefineToolOptions } from "./core/tools/define";
export { httpTool } from "./core/tools/http";
export type { HttpToolOptions } from "./core/tools/http";
export { relayTool } from "./core/tools/relay";
export { requireApproval } from "./core/tools/approval";
export type { RequireApprovalOptions } from "./core/tools/approval";
export { createToolkit } from "./core/toolkit";
export type { Toolkit, ToolkitOptions, ToolSource, ToolSourceLoader } from "./core/toolkit";
export { createClient, createInProcessClient } from "./core/client";
export type { Client, ClientOptions, InProcessClientOptions, GeneratedMessage, RunOptions } from "./core/client";
export type { ResumeInput } from "./core/loop/resume";
export type { Hooks } from "./core/hooks";
export type { RunEvent } from "./core/events";
export type { ModelRequest, ModelTurn, FinishReason, WireStyle } from "./core/providers/model";
export { MetricsRegistry } from "./core/metrics";
export type { MetricEvent } from "./core/metrics";
export { memoryConversationStore } from "./core/conversation-store";
export type { ConversationStore } from "./core/conversation-store";
export { ProviderError, ResumeError, RunAbortedError } from "./core/errors";
export { parseRetryAfter } from "./core/retry";
