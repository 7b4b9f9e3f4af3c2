/**
 * The runtime-agnostic kernel: the toolnexus agent contract. Runs unchanged in
 * workerd, Node ≥ 20, Deno and Bun (web-standard APIs only).
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
  ToolCallRecord,
  CompensationContext,
  CompensationRecord,
  ToolContext,
  ToolResult,
  Usage,
  WaitFor,
  RefusalText,
} from "./types";
export { RequestSchema, AnswerSchema } from "./wire";
export {
  answerOutput,
  answerDeclined,
  pending,
  authRequired,
  isPending,
  pendingOf,
  newRequestId,
} from "./answers";
export type { PendingInit } from "./answers";
export {
  CONTINUES,
  declinedResult,
  RUN_ON_REFUSAL,
  unresolvedResult,
} from "./suspension";
export { defineTool, toToolResult } from "./tools/define";
export {
  DEFAULT_MAX_TOOL_OUTPUT_BYTES,
  boundToolOutput,
  truncationLine,
} from "./loop/tool-output";
export type { BoundOutput, Truncation } from "./loop/tool-output";
export type { DefineToolOptions } from "./tools/define";
export { httpTool } from "./tools/http";
export type { HttpToolOptions } from "./tools/http";
export { relayTool } from "./tools/relay";
export { questionTool, renderQuestions, QUESTION_TOOL } from "./tools/question";
export type { Question } from "./tools/question";
export { requireApproval, approvalGate, describeApproval } from "./tools/approval";
// The one policy interface (docs/policy.md): AuthZEN evaluations, a PDP client, the policy types.
export { authzenPolicy, PolicyUnavailable, type AuthzenOptions } from "./policy/authzen";
export type {
  AccessEvaluation,
  PolicyAnswer,
  PolicyAsk,
  PolicyContext,
  PolicyRecord,
  ToolPolicy,
} from "./policy/types";
export type {
  RequireApprovalOptions,
  ApprovalGate,
  ApprovalDescription,
} from "./tools/approval";
export * from "./approvers";
export { canonicalJson } from "./schema/canonical-json";
export { createToolkit } from "./toolkit";
export { agent } from "./agent";
export {
  agentsFromConfig,
  parseAgentsConfig,
  DEFAULT_A2A_POLL_MS,
  DEFAULT_A2A_TIMEOUT_MS,
} from "./a2a";
export type { A2AAgent, A2AAgentConfig, AgentOptions } from "./a2a";
export type { Toolkit, ToolkitOptions, ToolSource, ToolSourceLoader } from "./toolkit";
export {
  parseMcpConfig,
  normalizeMcpConfig,
  sanitizeName,
  mcpToolName,
  DEFAULT_MCP_TIMEOUT_MS,
} from "./mcp/config";
export type { McpServerConfig } from "./mcp/config";
export { requestFromElicitation, resultFromAnswer, elicitationNote } from "./mcp/elicitation";
export type { ElicitationParams, ElicitationOrigin, ElicitationOutcome } from "./mcp/elicitation";
export { suspendCall, isSuspendCall } from "./mcp/bridge";
export type {
  ElicitationHandler,
  ElicitationContext,
  ElicitationReply,
  SuspendCall,
} from "./mcp/bridge";
export type { McpServerStatus, McpSource, LoadMcpOptions } from "./mcp";
export { memoryTokenStore, DEFAULT_SUBJECT } from "./mcp/oauth/store";
export type { TokenStore, OAuthRecord, StoredTokens } from "./mcp/oauth/store";
export type { McpOAuthConfig } from "./mcp/oauth/config";
export type { OAuthSignInLink, OAuthStateMaker } from "./mcp/oauth/session";
export { createClient, createInProcessClient } from "./client";
export type {
  Client,
  ClientOptions,
  InProcessClientOptions,
  GeneratedMessage,
  RunOptions,
  StreamOptions,
} from "./client";
export type { ErrorInfo, ErrorDecision, OnError } from "./client/model-call";
export { RESERVED_REQUEST_PARAMS } from "./client/request-params";
export type {
  TranslateRequest,
  TranslateResult,
  ChatMessage,
  ChatTool,
  ChatToolChoice,
} from "./client/translate";
export type { ResumeInput } from "./loop/resume";
export type { Hooks } from "./hooks";
export type { RunEvent } from "./events";
export type {
  ModelRequest,
  ModelTurn,
  FinishReason,
  WireStyle,
  ModelDelta,
  StreamParser,
} from "./providers/model";
export { MetricsRegistry } from "./metrics";
export type { MetricEvent } from "./metrics";
export { memoryConversationStore } from "./client/conversation-store";
export type { ConversationStore } from "./client/conversation-store";
export { ProviderError, ResumeError, RunAbortedError } from "./errors";
export { StreamInterruptedError } from "./streaming/sse";
export { parseRetryAfter } from "./client/retry";
export * from "./agents";
export * from "./compaction";
export * from "./compensation";
export type {
  TracingOptions,
  TraceCarrier,
  TracerLike,
  SpanLike,
  SpanContextLike,
  SpanOptionsLike,
  ContextLike,
} from "./tracing";
export {
  GENAI_SEMCONV_VERSION,
  formatTraceparent,
  parseTraceparent,
  traceIdOf,
  deciderHash,
} from "./tracing";
