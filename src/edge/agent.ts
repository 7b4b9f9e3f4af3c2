import type { Tool } from "../core/types";
import type { GeneratedMessage } from "../core/client";
import type { ModelRequest } from "../core/providers/model";
import { parseMcpConfig } from "../core/mcp/config";
import { toJsonSchema } from "../core/schema";
import { describeApproval, type ApprovalDescription } from "../core/tools/approval";
import type { OnVersionChange } from "./versions/types";

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
  /** Milliseconds a pending request waits before it expires (declined with "expired"). Default 24 h. */
  approvalTimeout?: number;
  /**
   * The model used when no `LLM_BASE_URL` is configured: a deterministic function
   * of the transcript, so `wrangler dev` and tests work offline.
   */
  demoModel?: (request: ModelRequest) => GeneratedMessage | Promise<GeneratedMessage>;
  /** Remote MCP servers, in the common config shape (see the MCP docs). */
  mcp?: unknown;
  /**
   * This agent's version, recorded with every run and request. Default: a hash over what
   * changes its behaviour (src/edge/versions/agent-version.ts).
   */
  version?: string;
  /** What a request suspended under another version meets on resume; default `"continue"`. */
  onVersionChange?: OnVersionChange;
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
  if (definition.approvalTimeout !== undefined && !(definition.approvalTimeout > 0)) {
    throw new TypeError(
      `defineAgent(${definition.name}): approvalTimeout must be a positive number of milliseconds`,
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
  // A malformed MCP config is a programming error: report it where the agent is defined.
  if (definition.mcp !== undefined) {
    parseMcpConfig(definition.mcp);
  }
  return Object.freeze({ ...definition });
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
