/**
 * An approver's edit judged by the policy that gated the call (docs/policy.md, "Edits"): the
 * agent's `policy` and the edge's `AUTHZEN_URL` tighten the in-code rule for the edited
 * arguments exactly as they did for the call. A deny refuses the edit; an ask under other
 * rules than the request's refuses it too (the edited arguments need other approvers: a new
 * request). Without such a policy nothing is asked here and checkEdit applies the in-code rule.
 * A policy that cannot answer leaves the in-code verdict, which must then agree with the
 * request's rules: an edit never gets past the policy because the PDP was down.
 */
import { decide } from "../../src/core/policy/decide";
import { accessEvaluation } from "../../src/core/policy/evaluation";
import { inCodeVerdict } from "../../src/core/policy/in-code";
import type { InCodeRules } from "../../src/core/policy/types";
import type { Request } from "../../src/core/types";
import { rulesOf } from "../../src/core/approvers/rules";
import { canonicalJson } from "../../src/core/schema/canonical-json";
import type { AgentDefinition } from "../../src/edge/agent";
import type { EdgeEnv } from "../../src/edge/settings";
import { livePolicyOf } from "../../src/edge/policy/run-tools";

/** The run whose call is edited, as the policy's evaluation names it. */
export interface EditRun {
  runId: string;
  threadId: string;
  agentVersion: string;
  requestedBy?: string;
}

export interface EditPolicyInput {
  agent: AgentDefinition;
  env: unknown;
  tool: string;
  gate: InCodeRules;
  request: Request;
  args: Record<string, unknown>;
  run: EditRun;
  groupExists?: (group: string) => boolean;
}

/** Why the policy refuses the edit, or undefined when it may count (or no policy is set). */
export async function editPolicyRefusal(input: EditPolicyInput): Promise<string | undefined> {
  const { agent, run, args, request } = input;
  const policy = livePolicyOf(agent, input.env as EdgeEnv);
  if (!policy) {
    return undefined;
  }
  const { verdict } = await decide({
    inCode: inCodeVerdict(input.gate, { args, request }),
    evaluation: accessEvaluation({
      agent: agent.name,
      tool: input.tool,
      args,
      context: { runId: run.runId, threadId: run.threadId, agentVersion: run.agentVersion },
      ...(run.requestedBy ? { requestedBy: run.requestedBy } : {}),
    }),
    policy,
    ...(input.groupExists ? { groupExists: input.groupExists } : {}),
  });
  if (verdict.decision === "deny") {
    return `the policy refuses the edited arguments: ${verdict.reason}`;
  }
  if (
    verdict.decision === "ask" &&
    canonicalJson(verdict.rules ?? null) !== canonicalJson(rulesOf(request) ?? null)
  ) {
    return `the edited arguments need other approvers (${JSON.stringify(verdict.rules ?? "none")}); ask for a new request instead`;
  }
  return undefined;
}
