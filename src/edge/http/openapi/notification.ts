/**
 * The body POSTed to a run's callbackUrl (docs/http-api.md "Notifications (outbound)"): described
 * for the OpenAPI document only; src/edge/notify/notification.ts builds it.
 */
import * as z from "zod";
import { RequestSchema } from "../../../core/wire";

/** The body POSTed to a run's callbackUrl when it suspends (signed like the decisions webhook). */
export const NotificationSchema = z
  .object({
    type: z
      .enum(["run.pending", "run.reminder", "run.escalated", "request.expiring"])
      .describe(
        "run.pending first; run.reminder every remindEvery; run.escalated when escalate.after passes. request.expiring once, warnBefore ahead of expiresAt. webhook-id: msg_<run>_<request>, then …_r<n>, …_esc, …_warn",
      ),
    runId: z.string(),
    threadId: z.string(),
    agent: z.string(),
    request: RequestSchema.extend({
      argsHash: z
        .string()
        .describe("The version of the arguments now up for approval: a decision carries it"),
    }),
    decisionUrl: z.string(),
    approvalUrl: z
      .string()
      .optional()
      .describe("Anonymous approval link; only for requests without approver rules"),
    linksUrl: z
      .string()
      .optional()
      .describe("Requests with rules: POST here (Bearer) for a per-approver link"),
    expiresAt: z.string().nullable(),
    metadata: z.unknown(),
    requestedBy: z.string().nullable(),
    votes: z.number().optional(),
    needed: z.number().optional(),
    reminder: z.number().optional().describe("run.reminder: 1, 2, …"),
    escalatedTo: z.string().optional().describe("run.escalated: the group that may decide now"),
  })
  .meta({ id: "Notification" });
