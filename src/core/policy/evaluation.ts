/** The AuthZEN access evaluation of one tool call (docs/policy.md, "The evaluation"). */
import { argsHash } from "../approvers/args-hash";
import type { AccessEvaluation, PolicyContext } from "./types";

export interface CallFacts {
  /** The run's `requestedBy`, when a person is known. */
  requestedBy?: string;
  agent: string;
  tool: string;
  args: unknown;
  context: PolicyContext;
}

/** subject = who asked (else the thread), action = `call_tool`, resource = the tool and its arguments. */
export function accessEvaluation(facts: CallFacts): AccessEvaluation {
  const { context } = facts;
  return {
    subject: facts.requestedBy
      ? { type: "user", id: facts.requestedBy }
      : { type: "thread", id: context.threadId },
    action: { name: "call_tool" },
    resource: {
      type: "tool",
      id: facts.tool,
      properties: {
        agent: facts.agent,
        args: facts.args ?? {},
        argsHash: argsHash(facts.args ?? {}),
      },
    },
    context: {
      runId: context.runId,
      threadId: context.threadId,
      agentVersion: context.agentVersion,
      ...(context.parentRunId ? { parentRunId: context.parentRunId } : {}),
    },
  };
}
