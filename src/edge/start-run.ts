/**
 * Starting a run on behalf of a protocol route (A2A, MCP): the same checks and the same
 * object RPC as `POST /v1/runs` (src/edge/routes/runs.ts), returning a plain outcome so each
 * protocol maps a refusal to its own error code.
 */
import type { AgentDefinition } from "./agent";
import { agentTools } from "./agent";
import { approverDirectory, type ApproverGroupsInit } from "./approver-groups";
import { readConfig, type EdgeEnv } from "./config";
import { approvalGate } from "../core/tools/approval";
import { newRunId, newThreadId, threadStub } from "./threads";
import { THREAD_ID } from "./schemas";
import type { RunView } from "./protocol";

export interface StartRequest {
  agent: AgentDefinition;
  input: string;
  threadId?: string;
  requestedBy?: string;
  callbackUrl?: string;
  metadata?: unknown;
  publicUrl: string;
}

export type StartedRun =
  | { ok: true; runId: string; threadId: string; run: RunView }
  | {
      ok: false;
      code: "thread_busy" | "unknown_agent" | "run_exists" | "agent_has_no_model" | "bad_thread";
      message: string;
    };

export async function startAgentRun(
  env: EdgeEnv,
  approverGroups: ApproverGroupsInit | undefined,
  request: StartRequest,
): Promise<StartedRun> {
  const { agent } = request;
  if (!readConfig(env).llm && !agent.demoModel) {
    return {
      ok: false,
      code: "agent_has_no_model",
      message: `agent ${JSON.stringify(agent.name)} has no model: set LLM_BASE_URL, LLM_STYLE and LLM_MODEL`,
    };
  }
  if (request.threadId !== undefined && !THREAD_ID.test(request.threadId)) {
    return {
      ok: false,
      code: "bad_thread",
      message: "a thread id is 1 to 128 letters, digits, '_' or '-'",
    };
  }
  // A rule naming an undefined group would leave its requests undecidable (throws config_error).
  const directory = approverDirectory(env, approverGroups);
  for (const tool of await agentTools(agent, env)) {
    const described = approvalGate(tool)?.describe();
    if (described && !described.rulesByArgs && (described.group || described.anyOf)) {
      directory.checkRules(described, { agent: agent.name, tool: tool.name });
    }
  }
  const threadId = request.threadId ?? newThreadId();
  const runId = newRunId(threadId);
  const outcome = await threadStub(env, threadId).start({
    runId,
    threadId,
    agent: agent.name,
    input: request.input,
    ...(request.callbackUrl ? { callbackUrl: request.callbackUrl } : {}),
    ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
    ...(request.requestedBy ? { requestedBy: request.requestedBy } : {}),
    publicUrl: request.publicUrl,
  });
  return outcome.ok ? { ok: true, runId, threadId, run: outcome.run } : outcome;
}
