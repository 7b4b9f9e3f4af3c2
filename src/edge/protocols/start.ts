/**
 * Starting a run for a chat protocol: the same checks and the same object call as
 * `POST /v1/runs`, in a conversation's thread, with the caller as `requestedBy`.
 */
import { approvalGate } from "../../core/tools/approval";
import { agentTools, type AgentDefinition } from "../agent";
import type { ApproverGroupsInit } from "../approvals/groups";
import { readConfig, type EdgeEnv, settings } from "../settings";
import { ApiError } from "../http/errors";
import type { RunView, ThreadRpc } from "../protocol";
import { MAX_INPUT_CHARS } from "../http/schemas";
import { newRunId } from "../http/threads";

export interface ProtocolDeps {
  agents: AgentDefinition[];
  approverGroups?: ApproverGroupsInit;
}

/** The agent named in the path, able to run (404 unknown, 400 without a model). */
export function runnableAgent(deps: ProtocolDeps, env: EdgeEnv, name: string): AgentDefinition {
  const agent = deps.agents.find((a) => a.name === name);
  if (!agent) {
    throw new ApiError(
      404,
      "unknown_agent",
      `no agent named ${JSON.stringify(name)}; see GET /v1/agents`,
    );
  }
  if (!readConfig(env).llm && !agent.demoModel) {
    throw new ApiError(
      400,
      "agent_has_no_model",
      `agent ${JSON.stringify(agent.name)} has no model: set LLM_BASE_URL, LLM_STYLE and LLM_MODEL`,
    );
  }
  return agent;
}

/** A message the model may read (400 above {@link MAX_INPUT_CHARS}). */
export function checkMessageLength(input: string): void {
  if (input.length > MAX_INPUT_CHARS) {
    throw new ApiError(
      400,
      "invalid_body",
      `the message is longer than ${MAX_INPUT_CHARS} characters`,
    );
  }
}

export async function startConversationRun(
  env: EdgeEnv,
  deps: ProtocolDeps,
  target: {
    publicUrl: string;
    agent: AgentDefinition;
    threadId: string;
    stub: ThreadRpc;
    input: string;
    user: string | null;
    metadata: Record<string, unknown>;
  },
): Promise<RunView> {
  checkMessageLength(target.input);
  // A rule naming a group nobody defined would leave its requests undecidable: say so now.
  const directory = settings(env).approvers(deps.approverGroups);
  for (const tool of await agentTools(target.agent, env)) {
    const described = approvalGate(tool)?.describe();
    if (described && !described.rulesByArgs && (described.group || described.anyOf)) {
      directory.checkRules(described, { agent: target.agent.name, tool: tool.name });
    }
  }
  const runId = newRunId(target.threadId);
  const outcome = await target.stub.start({
    runId,
    threadId: target.threadId,
    agent: target.agent.name,
    input: target.input,
    metadata: target.metadata,
    ...(target.user === null ? {} : { requestedBy: target.user }),
    publicUrl: target.publicUrl,
  });
  if (!outcome.ok) {
    throw new ApiError(outcome.code === "thread_busy" ? 409 : 400, outcome.code, outcome.message);
  }
  return outcome.run;
}
