/**
 * Today's in-code rules as a policy answer (one code path): `when` false → allow, the gate's
 * `policy` function → allow or deny, else ask under the gate's approver rules.
 */
import type { Request } from "../types";
import type { InCodeRules, Verdict } from "./types";

/** The in-code verdict on a call; a tool without a gate is allowed. */
export function inCodeVerdict(
  gate: InCodeRules | undefined,
  { args, request }: { args: unknown; request: Request },
): Verdict {
  if (!gate?.needsApproval(args)) {
    return { decision: "allow" };
  }
  const decided = gate.policy(args, request);
  if (decided) {
    return decided.ok
      ? { decision: "allow", answer: { ...decided, id: request.id } }
      : { decision: "deny", reason: decided.reason ?? "declined" };
  }
  const rules = gate.rulesFor(args);
  return rules ? { decision: "ask", rules } : { decision: "ask" };
}
