/**
 * Shadow mode: a candidate policy evaluated beside the live one for every call, never
 * deciding. Its answer is combined with the in-code rule exactly as the live one is, and a
 * disagreement with the live decision is reported with both answers (docs/policy.md, "Shadow mode").
 */
import { stricter } from "./stricter";
import { verdictOf } from "./decide";
import type { AccessEvaluation, PolicyRecord, ToolPolicy, Verdict } from "./types";

/** One side of a comparison, as the `policy_shadow` event shows it. */
export interface ShadowSide {
  policy: string;
  decision: Verdict["decision"];
  rules?: Record<string, unknown>;
  reason?: string;
}

export interface ShadowDisagreement {
  tool: string;
  live: ShadowSide;
  shadow: ShadowSide;
}

/**
 * Starts the shadow evaluation now (beside the live one) and resolves to the verdict it would
 * have given, or undefined when it could not answer within `timeoutMs` (never a disagreement).
 */
export function startShadow(
  shadow: ToolPolicy,
  {
    inCode,
    evaluation,
    timeoutMs,
  }: { inCode: Verdict; evaluation: AccessEvaluation; timeoutMs: number },
): Promise<Verdict | undefined> {
  const signal = AbortSignal.timeout(timeoutMs);
  const answered = shadow
    .evaluate(evaluation, { signal })
    .then((answer) => stricter(inCode, verdictOf(answer, { policy: shadow.id })).verdict)
    .catch(() => undefined);
  // Bounded even when a policy ignores the signal.
  const late = new Promise<undefined>((resolve) => {
    signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
  return Promise.race([answered, late]);
}

/** The disagreement between the live decision and the shadow's, or undefined when they agree. */
export function disagreement(
  tool: string,
  live: { verdict: Verdict; record: PolicyRecord },
  shadow: { verdict: Verdict; policy: string },
): ShadowDisagreement | undefined {
  const a = sideOf(live.verdict, live.record.id);
  const b = sideOf(shadow.verdict, shadow.policy);
  const same =
    a.decision === b.decision &&
    (a.decision !== "ask" || JSON.stringify(a.rules ?? null) === JSON.stringify(b.rules ?? null));
  return same ? undefined : { tool, live: a, shadow: b };
}

function sideOf(verdict: Verdict, policy: string): ShadowSide {
  const side: ShadowSide = { policy, decision: verdict.decision };
  if (verdict.decision === "ask" && verdict.rules) {
    side.rules = { ...verdict.rules };
  }
  if (verdict.decision === "deny") {
    side.reason = verdict.reason;
  }
  return side;
}
