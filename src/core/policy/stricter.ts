/**
 * The stricter answer wins (docs/policy.md, "The stricter answer wins"): an external policy
 * may tighten the in-code rule — ask where the code allows, deny where it asks, raise a
 * quorum — but never loosen it: a PDP's allow never skips an in-code ask or deny.
 */
import type { Verdict } from "./types";

const RANK = { allow: 0, ask: 1, deny: 2 } as const;

/** The combined verdict, and whether the external policy's answer is the one that decided. */
export function stricter(
  inCode: Verdict,
  external: Verdict,
): { verdict: Verdict; external: boolean } {
  const a = RANK[inCode.decision];
  const b = RANK[external.decision];
  if (a > b) {
    return { verdict: inCode, external: false };
  }
  if (b > a) {
    return { verdict: external, external: true };
  }
  if (inCode.decision === "allow") {
    // Both allow: the in-code policy's own automatic approval (if any) is kept for the record.
    return { verdict: inCode.answer ? inCode : external, external: true };
  }
  if (inCode.decision === "ask" && external.decision === "ask") {
    return { verdict: bothAsk(inCode, external), external: true };
  }
  return { verdict: external, external: true };
}

type Ask = Extract<Verdict, { decision: "ask" }>;

/** Both ask: the external rule names who (the policy's owners decide that), at the higher quorum and the earlier expiry. */
function bothAsk(inCode: Ask, external: Ask): Ask {
  const merged: Ask = { decision: "ask" };
  const rules = external.rules ?? inCode.rules;
  if (rules) {
    const quorum = Math.max(inCode.rules?.quorum ?? 1, external.rules?.quorum ?? 1);
    merged.rules = quorum > 1 ? { ...rules, quorum } : { ...rules };
  }
  const expiries = [inCode.expiresIn, external.expiresIn].filter((n) => n !== undefined);
  if (expiries.length > 0) {
    merged.expiresIn = Math.min(...expiries);
  }
  return merged;
}
