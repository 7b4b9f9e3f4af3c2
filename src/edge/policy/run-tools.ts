/**
 * A run's tools under the policy interface (docs/policy.md): every tool of the agent is
 * evaluated before it runs — its in-code rule, tightened by the agent's `policy` and the
 * edge's `AUTHZEN_URL` — and the shadow policy (`shadowPolicy`, `AUTHZEN_SHADOW_URL`) is
 * evaluated beside. What goes wrong is told: a fallback as a log line and a metric, a
 * `config_error` as the run's `error` event and a report, a disagreement as the run's
 * `policy_shadow` event, a log line, a metric and an entry of `GET /v1/policy/disagreements`.
 */
import type { Tool } from "../../core/types";
import type { ToolPolicy } from "../../core/policy/types";
import { withPolicy } from "../../core/policy/policy-tool";
import { allOf } from "../../core/policy/all-of";
import type { ShadowDisagreement } from "../../core/policy/shadow";
import type { PolicyTrouble } from "../../core/policy/decide";
import type { AgentDefinition } from "../agent";
import { logLine } from "../log-line";
import { settings, type EdgeEnv } from "../settings";
import { policyCounters } from "./metrics";

/** One disagreement as `GET /v1/policy/disagreements` lists it. */
export interface DisagreementEntry extends ShadowDisagreement {
  runId: string;
  threadId: string;
  agent: string;
  callId?: string;
  at: string;
}

export interface RunPolicyInput {
  agent: AgentDefinition;
  run: {
    runId: string;
    threadId: string;
    agentVersion?: string | null;
    requestedBy?: string | null;
  };
  env: EdgeEnv;
  /** Whether an approver group exists (the thread's directory). */
  groupExists?: (group: string) => boolean;
  /** Appends to the run's event log (the SSE vocabulary). */
  record(type: string, data: unknown): void;
  report?(error: unknown): void;
  /** Keeps a disagreement in the durable list. */
  keepDisagreement?(entry: DisagreementEntry): void;
}

/** The live policy of an agent's calls: its own `policy` and the edge's `AUTHZEN_URL`, together. */
export function livePolicyOf(agent: AgentDefinition, env: EdgeEnv): ToolPolicy | undefined {
  return allOf([agent.policy, settings(env).policy.live].filter((p) => p !== undefined));
}

/** The tools with their calls decided through the policy interface. */
export function policyTools(tools: readonly Tool[], input: RunPolicyInput): Tool[] {
  const { agent, run } = input;
  const edge = settings(input.env).policy;
  const policy = livePolicyOf(agent, input.env);
  const shadow = agent.shadowPolicy ?? edge.shadow;
  const ids = { runId: run.runId, threadId: run.threadId };
  const host = {
    agent: agent.name,
    context: { ...ids, agentVersion: run.agentVersion ?? "unversioned" },
    ...(run.requestedBy ? { requestedBy: run.requestedBy } : {}),
    ...(policy ? { policy } : {}),
    ...(shadow ? { shadow, shadowTimeoutMs: edge.timeoutMs } : {}),
    ...(input.groupExists ? { groupExists: input.groupExists } : {}),
    onTrouble: (trouble: PolicyTrouble & { tool: string; callId?: string }) =>
      troubled(input, trouble),
    onShadow: (found: ShadowDisagreement & { callId?: string }) => {
      policyCounters.disagreement(found.tool);
      input.record("policy_shadow", found);
      console.warn(
        logLine({
          level: "warn",
          code: "policy_shadow",
          message: `shadow policy ${found.shadow.policy} would ${found.shadow.decision} ${found.tool}; live: ${found.live.decision}`,
          ...ids,
          extra: { tool: found.tool, live: found.live, shadow: found.shadow },
        }),
      );
      input.keepDisagreement?.({
        ...found,
        ...ids,
        agent: agent.name,
        at: new Date().toISOString(),
      });
    },
  };
  return tools.map((tool) => withPolicy(tool, host));
}

function troubled(
  input: RunPolicyInput,
  trouble: PolicyTrouble & { tool: string; callId?: string },
) {
  const ids = { runId: input.run.runId, threadId: input.run.threadId };
  if (trouble.type === "fallback") {
    policyCounters.fallback(trouble.policy);
    console.warn(
      logLine({
        level: "warn",
        code: "policy_fallback",
        message: `policy ${trouble.policy} could not decide ${trouble.tool}, the in-code rule applies: ${trouble.error}`,
        ...ids,
        extra: { tool: trouble.tool, policy: trouble.policy },
      }),
    );
    return;
  }
  const message = `config_error: ${trouble.message}; the call of ${trouble.tool} was refused`;
  input.record("error", { code: "config_error", message, recoverable: true });
  input.report?.(new Error(message));
}
