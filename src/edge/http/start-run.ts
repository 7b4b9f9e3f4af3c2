/**
 * Starting a run: the one place for the checks every entrance makes before the thread's
 * object sees a run — `POST /v1/runs` (src/edge/http/runs.ts), A2A's `message/send` and an
 * MCP tool call (src/edge/protocols). It returns a plain outcome so each entrance maps a
 * refusal to its own error shape (HTTP 400/409, a JSON-RPC code, a tool error); a missing
 * secret or an undefined approver group throws `ConfigError` (500 config_error) as usual.
 */
import { type AgentDefinition, agentTools } from "../agent";
import type { ApproverGroupsInit } from "../approvals/groups";
import { checkCallbackUrl } from "../notify/callback-url";
import { notifySigningSecret, readConfig, type EdgeEnv, settings } from "../settings";
import { approvalGate } from "../../core/tools/approval";
import { newRunId, newThreadId, threadStub } from "./threads";
import { THREAD_ID } from "./schemas";
import type { RunView } from "../protocol";

export interface StartRequest {
  agent: AgentDefinition;
  input: string;
  threadId?: string;
  requestedBy?: string;
  callbackUrl?: string;
  metadata?: unknown;
  publicUrl: string;
  /** Only the identity of the thread's earlier runs may continue it (see `StartInput`). */
  requesterOnly?: boolean;
}

export type StartRefusalCode =
  | "thread_busy"
  | "thread_forbidden"
  | "unknown_agent"
  | "run_exists"
  | "agent_has_no_model"
  | "bad_thread"
  | "invalid_callback_url";

export type StartedRun =
  | { ok: true; runId: string; threadId: string; run: RunView }
  | {
      ok: false;
      code: StartRefusalCode;
      message: string;
      /** The request field the refusal is about, for a 400's issue list. */
      path?: "agent" | "threadId" | "callbackUrl";
      /** The short reason for that field (no field name in it). */
      reason?: string;
    };

export async function startAgentRun(
  env: EdgeEnv,
  approverGroups: ApproverGroupsInit | undefined,
  request: StartRequest,
): Promise<StartedRun> {
  const { agent } = request;
  const config = readConfig(env);
  if (!config.llm && !agent.demoModel) {
    return {
      ok: false,
      code: "agent_has_no_model",
      message: `agent ${JSON.stringify(agent.name)} has no model: set LLM_BASE_URL, LLM_STYLE and LLM_MODEL (LLM_API_KEY as a secret), or give the agent a demoModel`,
      path: "agent",
      reason: "no model configured for this agent",
    };
  }
  if (request.threadId !== undefined && !THREAD_ID.test(request.threadId)) {
    return {
      ok: false,
      code: "bad_thread",
      message: "a thread id is 1 to 128 letters, digits, '_' or '-'",
      path: "threadId",
      reason: "not a thread id",
    };
  }
  if (request.callbackUrl !== undefined) {
    const checked = checkCallbackUrl(request.callbackUrl, config.callbackAllow);
    if (!checked.ok) {
      return {
        ok: false,
        code: "invalid_callback_url",
        message: `callbackUrl ${checked.reason}`,
        path: "callbackUrl",
        reason: checked.reason,
      };
    }
    notifySigningSecret(config); // 500 config_error naming NOTIFY_SECRET
  }
  // A rule naming a group nobody defined would leave its requests undecidable: say so now.
  const directory = settings(env).approvers(approverGroups);
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
    ...(request.requesterOnly ? { requesterOnly: true } : {}),
  });
  return outcome.ok ? { ok: true, runId, threadId, run: outcome.run } : outcome;
}
