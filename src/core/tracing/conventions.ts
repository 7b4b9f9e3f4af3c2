/**
 * The attribute names the kernel's spans use. `gen_ai.*` and `error.type` follow the
 * OpenTelemetry GenAI semantic conventions at the version pinned below (Development status:
 * the names may still change upstream; we move deliberately, by changing this file and its
 * test). `toolnexus.*` are ours: upstream has no convention yet for a wait on a person.
 */

/** The GenAI semantic-conventions version these names follow. */
export const GENAI_SEMCONV_VERSION = "1.37.0";

/** The instrumentation scope our spans report (the edge's exporter sends it). */
export const INSTRUMENTATION_SCOPE = "toolnexus-edge";

export const GEN_AI = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  serverAddress: "server.address",
  errorType: "error.type",
} as const;

export const OPERATION = {
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
} as const;

/** Our own attributes: the run, and the wait for a decision (`await_decision {tool}`). */
export const TOOLNEXUS = {
  runId: "toolnexus.run.id",
  runStatus: "toolnexus.run.status",
  /** `start`, `resume` (with an answer) or `continue` (crash recovery). */
  segment: "toolnexus.run.segment",
  turns: "toolnexus.run.turns",
  limit: "toolnexus.run.limit",
  pendingRequest: "toolnexus.run.pending_request",
  turn: "toolnexus.turn",
  toolSource: "toolnexus.tool.source",
  requestId: "toolnexus.request.id",
  requestKind: "toolnexus.request.kind",
  requestGroup: "toolnexus.request.group",
  requestQuorum: "toolnexus.request.quorum",
  requestExpiresAt: "toolnexus.request.expires_at",
  /** `approved | declined | expired | cancelled`. */
  outcome: "toolnexus.request.outcome",
  /** `webhook | page | inbox | slack | policy | expiry | …` when the host says. */
  channel: "toolnexus.request.channel",
  waitMs: "toolnexus.request.wait_ms",
  /** Hex SHA-256 of salt, NUL, member id: the same person hashes alike under one salt. */
  decidedByHash: "toolnexus.request.decided_by_hash",
  /** Only with `tracing.decider: "clear"`. */
  decidedBy: "toolnexus.request.decided_by",
  /** A refusal's reason text; only with `recordContent` (an approver's words). */
  reason: "toolnexus.request.reason",
} as const;

export const AWAIT_DECISION = "await_decision";
