/**
 * Everything any request may come to need, checked before the first one is served: the
 * variables and bindings every worker needs, the receipts store and its key (every decision
 * signs a receipt), the MCP bindings, and every approver group a fixed tool rule names — for
 * every agent given to `createEdge`, so a sub-agent's tool (a team member's, at any depth)
 * is checked like its parent's and named as its own. A mistake answers every request,
 * `/healthz` included, with `500 config_error`, instead of surfacing once a run waits on a
 * decision nobody can record.
 *
 * Rules given as a function of the arguments are known only when a request surfaces (checked
 * there: durable/thread/halted.ts); a run's `callbackUrl` needs `NOTIFY_SECRET`, checked when
 * a run asks for one.
 */
import type { AgentDefinition } from "./agent";
import { agentTools } from "./agent";
import type { ApproverDirectory, ApproverGroupsInit } from "./approvals/groups";
import { approvalGate } from "../core/tools/approval";
import { inboxNamespace } from "./inbox/rpc";
import { mcpSessionNamespace } from "./protocols/mcp-server/sessions";
import { receiptNamespace } from "./receipts/rpc";
import { type EdgeEnv, settings } from "./settings";
import { checkAgentPolicies } from "./policy/check";

export interface ConfigCheckOptions {
  approverGroups?: ApproverGroupsInit;
  /** Some agent's MCP server signs in with OAuth: MCP_TOKENS and MCP_TOKEN_KEY are needed. */
  usesOAuth: boolean;
}

/**
 * The check for one set of agents. It throws (or rejects with) a `ConfigError`; the parts of
 * the environment it reads are parsed once per env by `settings`, and the agents' tools are
 * walked again only when the approver groups were parsed anew (a changed APPROVER_GROUPS).
 */
export function configCheck(
  agents: readonly AgentDefinition[],
  options: ConfigCheckOptions,
): (env: EdgeEnv) => Promise<void> {
  // The directory each env last passed the tool walk with.
  const walked = new WeakMap<object, ApproverDirectory>();
  const unbuildable = new WeakSet<AgentDefinition>();
  /**
   * An agent's tools; none when its tool factory throws (a variable of the application's own,
   * say): that is the agent's failure, not the worker's — its runs fail with the error, as
   * before, while the other agents are served.
   */
  const toolsOrNone = async (agent: AgentDefinition, env: EdgeEnv) => {
    try {
      unbuildable.delete(agent);
      return await agentTools(agent, env);
    } catch {
      unbuildable.add(agent);
      return [];
    }
  };
  return async (env) => {
    const edge = settings(env);
    edge.config; // API_TOKEN, WEBHOOK_SECRET, …, THREADS and the queues
    edge.slack;
    edge.email; // EMAIL and EMAIL_FROM together, or neither
    edge.teams; // TEAMS_APP_ID and TEAMS_APP_PASSWORD together, or neither
    edge.access;
    edge.policy; // AUTHZEN_URL and AUTHZEN_SHADOW_URL are URLs, AUTHZEN_TIMEOUT_MS a number
    inboxNamespace(env);
    mcpSessionNamespace(env);
    receiptNamespace(env);
    await edge.receiptKeys();
    if (options.usesOAuth) {
      edge.oauth;
    }
    const directory = edge.approvers(options.approverGroups);
    if (walked.get(env) === directory) {
      return;
    }
    for (const agent of agents) {
      await checkAgentPolicies(agent, directory); // a Cedar syntax error, an unknown group (issue 43)
      for (const tool of await toolsOrNone(agent, env)) {
        const described = approvalGate(tool)?.describe();
        if (described && !described.rulesByArgs) {
          directory.checkRules(described, { agent: agent.name, tool: tool.name });
        }
      }
    }
    // An exposed tool with approval rules (agents whose tools cannot be built are left out).
    const exposing = agents.filter((a) => a.mcpServerTools?.length && !unbuildable.has(a));
    if (exposing.length > 0) {
      // Loaded only then: the MCP server's modules stay out of start-up (startup-modules test).
      const { plainTools } = await import("./protocols/mcp-server/plain-tools");
      await plainTools(exposing, env, new Set());
    }
    walked.set(env, directory);
  };
}
