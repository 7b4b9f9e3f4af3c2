/**
 * The page a person sees once a link's form recorded their vote or decision: the approval page
 * (./routes.ts) and an email's personal link (../email/routes.ts) say the same thing.
 */
import type { DecisionOutcome } from "../protocol";
import { renderMessagePage } from "./page";

/** The HTML for a recorded outcome (a refusal has a page of its own at each call site). */
export function recordedPage(
  outcome: Extract<DecisionOutcome, { ok: true }>,
  decision: "approve" | "decline",
): string {
  if (outcome.decision === null) {
    return renderMessagePage(
      "Vote recorded",
      `Thank you. ${outcome.votes ?? 0} of ${outcome.needed ?? 1} approvals so far; the request applies when enough members agree.`,
    );
  }
  const word = decision === "approve" ? "approved" : "declined";
  return renderMessagePage(
    `Decision recorded: ${word}`,
    `Thank you. The request was ${word} and the run will continue.`,
  );
}
