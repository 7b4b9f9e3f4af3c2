import type { Answer, Request, Tool } from "../core/types";
import type { Budget } from "../core/agents/types";
import type { CompactorOptions } from "../core/compaction";
import type { GeneratedMessage } from "../core/client";
import type { ModelRequest } from "../core/providers/model";
import { normalizeEdgeMcpConfig } from "./oauth/settings";
import { toJsonSchema } from "../core/schema";
import { describeApproval, type ApprovalDescription } from "../core/tools/approval";
import { checkMaxOutputBytes } from "../core/loop/tool-output";
import type { OnVersionChange } from "./versions/types";
import type { ToolPolicy } from "../core/policy/types";
import { validateRules, type Rules } from "../core/approvers/rules";

/** Tools may depend on the worker's environment (bindings, secrets), so they can be built per run. */
export type AgentTools<Env = unknown> = Tool[] | ((env: Env) => Tool[] | Promise<Tool[]>);

/** `Env` is the worker's environment type, as given to `createEdge<Env>()`. */
export interface AgentDefinition<Env = unknown> {
  name: string;
  description: string;
  systemPrompt: string;
  tools: AgentTools<Env>;
  /** Overrides `LLM_MODEL` for this agent. */
  model?: string;
  maxTurns?: number;
  /**
   * The most UTF-8 bytes of one tool output (MCP results and sub-agents' answers included) its
   * model is sent; default 262144 (256 KiB), `Infinity` for no bound; a tool's own
   * `maxOutputBytes` wins. The whole output is kept and served at
   * `GET /v1/runs/:runId/tool-calls/:callId/output` (docs/agents.md, "Tool output size").
   */
  maxToolOutputBytes?: number;
  /**
   * Milliseconds a pending request waits before it expires (declined with "expired"). Default
   * 24 h. A function reads it from the worker's environment per suspension (undefined: the default).
   */
  approvalTimeout?: number | ((env: Env) => number | undefined);
  /**
   * The model used when no `LLM_BASE_URL` is configured: a deterministic function
   * of the transcript, so `wrangler dev` and tests work offline.
   */
  demoModel?: (request: ModelRequest) => GeneratedMessage | Promise<GeneratedMessage>;
  /** Remote MCP servers, in the common config shape (see the MCP docs). */
  mcp?: unknown;
  /**
   * Built-in tools by name, opt-in (none by default): `["question"]` lets the model ask the
   * user (SPEC §4A; the run suspends with `kind: "question"`, answered like any request).
   */
  builtins?: string[];
  /**
   * Names of this agent's own tools that the MCP server at /mcp also lists on their own,
   * run directly without a run (SPEC §7C). Tools with approval rules are refused (config_error).
   */
  mcpServerTools?: string[];
  /**
   * This agent's version, recorded with every run and request. Default: a hash over what
   * changes its behaviour (src/edge/versions/agent-version.ts).
   */
  version?: string;
  /** What a request suspended under another version meets on resume; default `"continue"`. */
  onVersionChange?: OnVersionChange;
  /**
   * Agents (by name, each given to `createEdge` too) this one may delegate to through the
   * `task { agent, prompt }` tool. The whole tree runs inside the thread's Durable Object
   * (durable/agents/): a child's approval is the run's pending request, with `data.path`.
   */
  team?: string[];
  /** Limits of this agent's handle and everything below it (SPEC §7D budgets). */
  budget?: Budget;
  /** Compacts what is sent to the model once the transcript is over `maxTokens` (SPEC §7F); what is stored stays whole. */
  compaction?: CompactorOptions;
  /**
   * Answers its team's requests that carry no approver rules (the parent's §7D authority):
   * return an Answer to decide, or undefined to let the run surface the request as usual.
   * Requests with approver rules are never offered to it: those are decided by their group.
   */
  waitFor?: (request: Request) => Answer | undefined | Promise<Answer | undefined>;
  /**
   * A policy every tool call of this agent is evaluated with (docs/policy.md): a Cedar policy
   * (`toolnexus-edge/cedar`), an AuthZEN PDP (`authzenPolicy`), or your own. It tightens the
   * in-code rules, never loosens them; `AUTHZEN_URL`, when set, applies too (the strictest wins).
   */
  policy?: ToolPolicy;
  /** Evaluated beside the live policy for every call, never deciding (docs/policy.md, "Shadow mode"). */
  shadowPolicy?: ToolPolicy;
  /**
   * `"compensate"`: a run that fails or is cancelled after calls with a `compensate` completed
   * takes them back automatically, last first (an undo by `"onFailure"`; docs/undo.md).
   */
  onFailure?: "compensate";
  /**
   * `approvers`: an undo of this agent's runs (POST /v1/runs/:runId/undo) is first a request
   * like any other, decided by these rules (quorum, expiry; approvers may edit only the
   * reason) before anything is compensated. `expiresIn`: milliseconds (default: the agent's
   * approval timeout). docs/undo.md.
   */
  undo?: { approvers: Rules; expiresIn?: number };
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 60 * 60 * 1000;
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
// A version is a map key (`pendingByVersion`) and shown in reasons: printable, no spaces.
const VERSION = /^[\x21-\x7e]{1,128}$/;

/**
 * Declares an agent the edge can run.
 * @example
 * export const support = defineAgent({
 *   name: "support", description: "Order support", systemPrompt: "You help with orders.",
 *   tools: [lookupOrder, requireApproval(refundOrder, { when: (a) => a.amount > 50 })],
 * });
 */
export function defineAgent<Env = unknown>(definition: AgentDefinition<Env>): AgentDefinition<Env> {
  if (!NAME.test(definition.name)) {
    throw new TypeError(
      `defineAgent: name must match ${NAME} (got ${JSON.stringify(definition.name)})`,
    );
  }
  if (
    definition.maxTurns !== undefined &&
    !(Number.isInteger(definition.maxTurns) && definition.maxTurns > 0)
  ) {
    throw new TypeError(`defineAgent(${definition.name}): maxTurns must be a positive integer`);
  }
  checkMaxOutputBytes(
    definition.maxToolOutputBytes,
    `defineAgent(${definition.name}): maxToolOutputBytes`,
  );
  if (typeof definition.approvalTimeout === "number" && !(definition.approvalTimeout > 0)) {
    throw new TypeError(
      `defineAgent(${definition.name}): approvalTimeout must be a positive number of milliseconds`,
    );
  }
  if (
    definition.mcpServerTools !== undefined &&
    !(
      Array.isArray(definition.mcpServerTools) &&
      definition.mcpServerTools.every((name) => typeof name === "string" && name)
    )
  ) {
    throw new TypeError(
      `defineAgent(${definition.name}): mcpServerTools must be an array of tool names`,
    );
  }
  if (
    definition.version !== undefined &&
    !(typeof definition.version === "string" && VERSION.test(definition.version))
  ) {
    throw new TypeError(
      `defineAgent(${definition.name}): version must be 1–128 printable characters without spaces`,
    );
  }
  if (definition.undo !== undefined) {
    validateRules(definition.undo.approvers, `defineAgent(${definition.name}).undo.approvers`);
  }
  if (definition.onFailure !== undefined && definition.onFailure !== "compensate") {
    throw new TypeError(`defineAgent(${definition.name}): onFailure must be "compensate"`);
  }
  const change = definition.onVersionChange;
  if (
    change !== undefined &&
    change !== "continue" &&
    change !== "decline" &&
    typeof change !== "function"
  ) {
    throw new TypeError(
      `defineAgent(${definition.name}): onVersionChange must be "continue", "decline" or a function`,
    );
  }
  if (
    definition.team !== undefined &&
    !(Array.isArray(definition.team) && definition.team.every((n) => typeof n === "string" && n))
  ) {
    throw new TypeError(`defineAgent(${definition.name}): team must be an array of agent names`);
  }
  // A malformed MCP config is a programming error: report it where the agent is defined.
  if (definition.mcp !== undefined) {
    normalizeEdgeMcpConfig(definition.mcp); // an oauth redirectUrl may be left to the edge
  }
  return Object.freeze({ ...definition });
}

/** The agent's approval timeout in this environment (a function's answer is checked too). */
export function approvalTimeoutOf(agent: AgentDefinition, env: unknown): number {
  const timeout =
    typeof agent.approvalTimeout === "function"
      ? agent.approvalTimeout(env)
      : agent.approvalTimeout;
  if (timeout === undefined) {
    return DEFAULT_APPROVAL_TIMEOUT_MS;
  }
  if (!(Number.isFinite(timeout) && timeout > 0)) {
    throw new TypeError(
      `agent ${agent.name}: approvalTimeout must be a positive number of milliseconds, got ${timeout}`,
    );
  }
  return timeout;
}

export async function agentTools(agent: AgentDefinition, env: unknown): Promise<Tool[]> {
  return typeof agent.tools === "function" ? agent.tools(env) : agent.tools;
}

/** A tool as `GET /v1/agents` lists it: its input JSON Schema and the static parts of its approval rules. */
export function describeTool(tool: Tool): {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  approval?: ApprovalDescription;
} {
  const approval = describeApproval(tool);
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: toJsonSchema(tool.inputSchema),
    ...(approval ? { approval } : {}),
  };
}
