/**
 * What the approval page (./routes.ts) and an email's personal link (../email/routes.ts) show
 * alike: the described request, and the page once a vote or decision is recorded. Each link
 * adds what is its own (editable keys, who is signed in, a read-only notice).
 */
import type { DecisionOutcome, RequestDescription } from "../protocol";
import { approvalSubject } from "./links";
import { type ApprovalPageView, renderMessagePage } from "./page";

/** An open request's description (what a link found still pending). */
type OpenRequest = Extract<RequestDescription, { state: "open" }>;

export function describedPageView(
  description: OpenRequest,
  { runId, actionPath }: { runId: string; actionPath: string },
): ApprovalPageView {
  const { request, approval } = description;
  const data = request.data ?? {};
  return {
    prompt: request.prompt,
    kind: request.kind,
    args: description.args ?? approvalSubject(request),
    argsHash: description.argsHash,
    ...(typeof data.tool === "string" ? { toolName: data.tool } : {}),
    runId,
    requestId: request.id,
    ...(description.expiresAt ? { expiresAt: description.expiresAt } : {}),
    actionPath,
    data,
    agent: description.agent,
    ...(description.input === undefined ? {} : { input: description.input }),
    requestedBy: description.requestedBy ?? null,
    metadata: description.metadata ?? null,
    ...(approval
      ? { votes: approval.votes, approvals: approval.approvals, needed: approval.needed }
      : {}),
  };
}

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
