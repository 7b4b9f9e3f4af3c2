/**
 * The undo window (approver rule `delay`, docs/undo.md): an approval that met its quorum is
 * recorded as always, but held: the driver applies it only once `decidedAt + delay` has passed
 * (the thread's alarm is armed for that moment, so it survives restarts), and until then any
 * approver of the request may revoke it (revoke.ts). Time only moves forward, so whichever
 * comes first — the revoke or the moment the hold ends — is the one outcome: a revoke at or
 * after that moment is refused, and a drive before it does not apply the approval.
 */
import type { Request } from "../../src/core/types";
import { rulesOf } from "../../src/core/approvers/rules";
import { parseDuration } from "../../src/core/approvers/duration";
import type { DecisionRow } from "../storage/run-store";

/** When a held approval may be applied, or undefined when the decision is not held. */
export function heldUntil(
  decision: Pick<DecisionRow, "decision" | "decidedAt">,
  request: Request | undefined,
): number | undefined {
  const delay = request ? rulesOf(request)?.delay : undefined;
  if (decision.decision !== "approve" || delay === undefined) {
    return undefined;
  }
  return decision.decidedAt + parseDuration(delay, "approvers.delay");
}

/** The approval is still in its undo window at `now`. */
export function isHeld(
  decision: Pick<DecisionRow, "decision" | "decidedAt">,
  request: Request | undefined,
  now: number,
): boolean {
  const until = heldUntil(decision, request);
  return until !== undefined && now < until;
}
