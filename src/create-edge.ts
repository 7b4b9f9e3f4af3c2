import type { AgentDefinition } from "./edge/agent";
import { createWorker, type WorkerOptions } from "./edge/create-worker";
import { createThreadObjectClass, type ThreadObjectClass } from "../durable/thread/object";
import { InboxObject } from "../durable/inbox/object";
import { checkTeams } from "./edge/agents/team-check";
import { ReceiptObject } from "../durable/receipts/object";
import { createMcpSessionClass, type McpSessionObjectClass } from "../durable/mcp/session-object";
import { TokenObject } from "../durable/tokens/object";
import { bindAgentEnv, envRegistry } from "./edge/agents/bind-env";
import type { EdgeEnv } from "./edge/settings";

/**
 * `createEdge`'s options; `Env` is the worker's environment type (from `wrangler types`),
 * which holds the variables and bindings the edge reads (`EdgeEnv`, all optional here and
 * checked when the worker runs).
 */
export interface EdgeOptions<Env extends EdgeEnv = EdgeEnv> extends Omit<WorkerOptions, "agents"> {
  agents: AgentDefinition<Env>[];
}

export interface Edge<Env extends EdgeEnv = EdgeEnv> {
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
export function createEdge<Env extends EdgeEnv = EdgeEnv>(options: EdgeOptions<Env>): Edge<Env> {
  // A team naming an agent that is not deployed, or an unbounded cycle, fails here, by name.
  checkTeams(options.agents);
  // The edge carries the environment as its own `EdgeEnv` (the variables and bindings it
  // reads, checked at run time in src/edge/settings/); the agents' tools are handed the same
  // object back as the application's `Env`, which only the entry points below receive.
  const envs = envRegistry<Env>();
  // The other options are carried over as they are defined, not copied: an option may be a
  // getter the edge reads each time it needs it (a test widens a window between drives).
  const { agents: _agents, ...rest } = Object.getOwnPropertyDescriptors(options);
  const edgeOptions: WorkerOptions = Object.defineProperties(
    { agents: options.agents.map((agent) => bindAgentEnv(agent, envs.appEnv)) },
    rest,
  );
  const handlers = createWorker(edgeOptions);
  const ThreadBase = createThreadObjectClass(edgeOptions);
  const McpSessionBase = createMcpSessionClass(edgeOptions);
  return {
    worker: {
      fetch: (request, env, ctx) => handlers.fetch(request, envs.enter(env), ctx),
      queue: (batch, env, ctx) => handlers.queue(batch, envs.enter(env), ctx),
    },
    ThreadObject: class ThreadObject extends ThreadBase {
      // The object passed to `super`, seen as the application's type.
      declare protected readonly env: Env;
      constructor(ctx: DurableObjectState, env: Env) {
        super(ctx, envs.enter(env));
      }
    },
    InboxObject,
    ReceiptObject,
    McpSessionObject: class McpSessionObject extends McpSessionBase {
      declare protected readonly env: Env;
      constructor(ctx: DurableObjectState, env: Env) {
        super(ctx, envs.enter(env));
      }
    },
    TokenObject,
  };
}
