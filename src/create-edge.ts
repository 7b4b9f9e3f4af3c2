import type { AgentDefinition } from "./edge/agent";
import { createWorker, type WorkerOptions } from "./edge/create-worker";
import { createThreadObjectClass, type ThreadObjectClass } from "../durable/thread/object";
import { InboxObject } from "../durable/inbox/object";
import { checkTeams } from "./edge/agents/team-check";
import { ReceiptObject } from "../durable/receipts/object";
import { createMcpSessionClass, type McpSessionObjectClass } from "../durable/mcp/session-object";
import { TokenObject } from "../durable/tokens/object";

/** `createEdge`'s options; `Env` is the worker's environment type (from `wrangler types`). */
export interface EdgeOptions<Env = unknown> extends Omit<WorkerOptions, "agents"> {
  agents: AgentDefinition<Env>[];
}

export interface Edge<Env = unknown> {
  /** Export as the worker's default: `export default edge.worker`. */
  worker: ExportedHandler<Env>;
  /** Export under the class name wrangler.toml binds as THREADS: `export class ThreadObject extends edge.ThreadObject {}`. */
  ThreadObject: ThreadObjectClass<Env>;
  /** Export under the class name wrangler.toml binds as INBOXES: `export class InboxObject extends edge.InboxObject {}`. */
  InboxObject: typeof InboxObject;
  /** Export under the class name wrangler.toml binds as RECEIPTS: `export class ReceiptObject extends edge.ReceiptObject {}`. */
  ReceiptObject: typeof ReceiptObject;
  /** Export under the class name wrangler.toml binds as MCP_SESSIONS: `export class McpSessionObject extends edge.McpSessionObject {}`. */
  McpSessionObject: McpSessionObjectClass<Env>;
  /** Export under the class name wrangler.toml binds as MCP_TOKENS (needed when an agent uses MCP `oauth`): `export class TokenObject extends edge.TokenObject {}`. */
  TokenObject: typeof TokenObject;
}

/**
 * Builds a deployable edge from agent definitions: the worker's handlers and the
 * Durable Object classes: one per thread, one approvals inbox per approver group, one per MCP
 * session, one per MCP sign-in subject (its OAuth tokens), one store of every thread's
 * decision receipts. Export them all from your worker module.
 * @example
 * const edge = createEdge<Env>({ agents: [supportAgent] });
 * export class ThreadObject extends edge.ThreadObject {}
 * export class InboxObject extends edge.InboxObject {}
 * export class ReceiptObject extends edge.ReceiptObject {}
 * export class McpSessionObject extends edge.McpSessionObject {}
 * export class TokenObject extends edge.TokenObject {}
 * export default edge.worker;
 */
export function createEdge<Env = unknown>(options: EdgeOptions<Env>): Edge<Env> {
  // The edge reads only its own variables and bindings (checked at run time, see
  // src/edge/settings/); the application's Env type reaches its agents' tools.
  const edgeOptions = options as unknown as WorkerOptions;
  // A team naming an agent that is not deployed, or an unbounded cycle, fails here, by name.
  checkTeams(options.agents as AgentDefinition[]);
  return {
    worker: createWorker(edgeOptions) as unknown as ExportedHandler<Env>,
    ThreadObject: createThreadObjectClass(edgeOptions) as unknown as ThreadObjectClass<Env>,
    InboxObject,
    ReceiptObject,
    McpSessionObject: createMcpSessionClass(edgeOptions) as unknown as McpSessionObjectClass<Env>,
    TokenObject,
  };
}
