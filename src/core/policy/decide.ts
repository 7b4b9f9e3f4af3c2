/**
 * The live decision on a call: the in-code verdict, tightened by the configured policy when
 * there is one (the stricter answer wins). A policy that cannot answer leaves the in-code
 * verdict in force, recorded as `source: "fallback"`; one that asks a group nobody defined
 * is a configuration mistake and refuses the call (fail closed), reported as `config_error`.
 */
import { askVerdict } from "./ask";
import { stricter } from "./stricter";
import type { AccessEvaluation, PolicyAnswer, PolicyRecord, ToolPolicy, Verdict } from "./types";

/** What the host hears about a policy's trouble (a log line, a metric, an event). */
export type PolicyTrouble =
  | { type: "fallback"; policy: string; error: string }
  | { type: "config_error"; policy: string; message: string };

export interface DecideInput {
  inCode: Verdict;
  evaluation: AccessEvaluation;
  policy?: ToolPolicy;
  /** Whether an approver group exists (the host's directory); undefined: not checked. */
  groupExists?: (group: string) => boolean;
  onTrouble?: (trouble: PolicyTrouble) => void;
}

export interface Decided {
  verdict: Verdict;
  record: PolicyRecord;
}

/** An answer as a verdict: an ask's rules checked, its group known; a deny's reason reads `policy: …`. */
export function verdictOf(
  answer: PolicyAnswer,
  { policy, groupExists }: { policy: string; groupExists?: (group: string) => boolean },
): Verdict {
  switch (answer.decision) {
    case "allow":
      return { decision: "allow" };
    case "deny":
      return {
        decision: "deny",
        reason: answer.reason.startsWith("policy:") ? answer.reason : `policy: ${answer.reason}`,
      };
    case "ask": {
      const verdict = askVerdict(answer.ask ?? {}, `${policy}: ask`);
      const group = verdict.rules?.group;
      if (group !== undefined && groupExists && !groupExists(group)) {
        throw new PolicyConfigError(
          `${policy} asked group ${JSON.stringify(group)}, which is not defined (APPROVER_GROUPS)`,
        );
      }
      return verdict;
    }
  }
}

/** A policy's answer that no configuration of this edge can carry out. */
export class PolicyConfigError extends Error {
  override readonly name = "PolicyConfigError";
}

export async function decide(input: DecideInput): Promise<Decided> {
  const { inCode, evaluation, policy } = input;
  const inCodeRecord = (verdict: Verdict, source: "code" | "fallback"): PolicyRecord => ({
    id: "in-code",
    version: evaluation.context.agentVersion,
    decision: verdict.decision,
    source,
  });
  if (!policy) {
    return { verdict: inCode, record: inCodeRecord(inCode, "code") };
  }
  let external: Verdict;
  try {
    external = verdictOf(await policy.evaluate(evaluation), {
      policy: policy.id,
      ...(input.groupExists ? { groupExists: input.groupExists } : {}),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof PolicyConfigError) {
      input.onTrouble?.({ type: "config_error", policy: policy.id, message });
      const verdict: Verdict = { decision: "deny", reason: `policy: config_error: ${message}` };
      return {
        verdict,
        record: { id: policy.id, version: policy.version, decision: "deny", source: policy.source },
      };
    }
    input.onTrouble?.({ type: "fallback", policy: policy.id, error: message });
    return { verdict: inCode, record: inCodeRecord(inCode, "fallback") };
  }
  const combined = stricter(inCode, external);
  return {
    verdict: combined.verdict,
    record: combined.external
      ? {
          id: policy.id,
          version: policy.version,
          decision: combined.verdict.decision,
          source: policy.source,
        }
      : inCodeRecord(combined.verdict, "code"),
  };
}
