/**
 * The one table from a wire code to its HTTP status. The thread object and the kernel say
 * what happened in codes (`request_not_pending`, `not_an_approver`, …); every route that
 * answers over HTTP — the webhook, the approval page, the inbox, Slack, the chat protocols —
 * takes its status from here, so the same refusal is the same status on every channel.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { DecisionOutcome, DecisionRefusalCode } from "../protocol";

export const STATUS_OF: Record<DecisionRefusalCode, ContentfulStatusCode> = {
  run_not_found: 404,
  request_not_found: 404,
  request_not_pending: 409,
  request_expired: 409,
  request_not_decidable: 409,
  already_decided: 409,
  conflicting_decision: 409,
  args_changed: 409,
  agent_changed: 409,
  not_an_approver: 403,
  own_request: 403,
  member_required: 400,
  invalid_args: 400,
  not_editable: 400,
  edit_refused: 400,
  invalid_data: 400,
  config_error: 500,
};

/** An accepted decision is 202, its identical repeat 200; a refusal is its code's status. */
export function decisionStatus(outcome: DecisionOutcome): ContentfulStatusCode {
  if (outcome.ok) {
    return outcome.duplicate ? 200 : 202;
  }
  return STATUS_OF[outcome.code];
}

/** The status of a refusal code (an `ApproverCheck`'s, say). */
export function statusOf(code: DecisionRefusalCode): ContentfulStatusCode {
  return STATUS_OF[code];
}
