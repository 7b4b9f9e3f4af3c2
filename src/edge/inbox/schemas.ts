/** zod schemas of the approvals inbox routes (validation and /openapi.json). */
import * as z from "zod";
import { INBOX_LIMIT_DEFAULT, INBOX_LIMIT_MAX } from "./item";
import { identityField } from "../http/schemas";

const filterText = (what: string) => z.string().min(1).max(200).optional().describe(what);

/** The filters and order `GET /v1/approvals` and the `/inbox` page share. */
export const InboxFilterFields = {
  agent: filterText("Only requests of this agent (exact name)"),
  tool: filterText("Only requests for this tool (exact name)"),
  requestedBy: filterText("Only requests of runs started for this person (case-insensitive)"),
  q: filterText(
    "Text in the prompt, the arguments (as JSON) or the user's input: case-insensitive, Unicode-aware (NFKC, full case folding)",
  ),
  sort: z
    .enum(["expires", "surfaced"])
    .optional()
    .describe(
      "`expires`: soonest expiry first (none last); `surfaced`: oldest surfaced first. Absent: open oldest surfaced first, decided newest decision first",
    ),
};

export const ApprovalsQuerySchema = z
  .strictObject({
    group: z.string().min(1, "is required").max(64).describe("An approver group, or `default`"),
    status: z.enum(["open", "decided"]).default("open"),
    cursor: z.string().min(1).max(1024).optional().describe("`nextCursor` of the previous page"),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(INBOX_LIMIT_MAX)
      .default(INBOX_LIMIT_DEFAULT)
      .describe(`Items per page, 1–${INBOX_LIMIT_MAX} (default ${INBOX_LIMIT_DEFAULT})`),
    ...InboxFilterFields,
  })
  .meta({ id: "ApprovalsQuery" });

export const ApproverLinkCreateSchema = z
  .strictObject({
    approver: identityField().describe(
      "A member id or one of a member's identities (email, slack:T/U)",
    ),
  })
  .meta({ id: "ApproverLinkCreate" });

export const ApproverLinkSchema = z
  .object({
    url: z.string().describe("Opens the inbox signed in as the approver (sets a session cookie)"),
    expiresAt: z.string(),
  })
  .meta({ id: "ApproverLink" });

const VoteSchema = z.object({
  decidedBy: z.string(),
  decision: z.string(),
  channel: z.string(),
  at: z.string(),
  args: z.unknown().optional(),
  argsHash: z.string().optional().describe("The version of the arguments the vote was cast on"),
  reset: z.boolean().optional(),
});

export const InboxItemSchema = z
  .object({
    requestId: z.string(),
    runId: z.string(),
    threadId: z.string(),
    agent: z.string(),
    input: z.string().describe("The user's input that started the run"),
    requestedBy: z.string().nullable(),
    tool: z.string().nullable(),
    args: z
      .unknown()
      .describe(
        "The arguments now up for approval (once decided: those decided on); an edit replaces them",
      ),
    argsHash: z
      .string()
      .describe(
        "Their version (base64url SHA-256 of their canonical JSON): an approval must carry it",
      ),
    askedBy: z
      .string()
      .optional()
      .describe('A sub-agent\'s request: which one asked, for whom ("refunds, for coordinator")'),
    editedBy: z
      .string()
      .nullable()
      .describe("Who edited the arguments; null while they are the request's own"),
    metadata: z.unknown(),
    prompt: z.string(),
    kind: z.string(),
    schema: z.unknown().optional(), // kind input: the fields asked for (flat JSON Schema)
    expiresAt: z.string().nullable(),
    groups: z.array(z.string()),
    status: z.enum(["open", "decided"]),
    event: z.enum(["surfaced", "vote", "decided", "expired", "cancelled", "escalated", "expiring"]),
    expiring: z
      .literal(true)
      .optional()
      .describe("The rule's warnBefore passed: the request expires soon (issue 42)"),
    votes: z.array(VoteSchema),
    needed: z.number().nullable(),
    editable: z
      .union([z.boolean(), z.array(z.string())])
      .optional()
      .describe("Arguments an approver may change: true = all, or their names"),
    decision: z
      .object({
        outcome: z.enum(["approved", "declined", "cancelled", "expired"]),
        decidedBy: z.string().nullable(),
        channel: z.string().describe("webhook, page, inbox, slack, policy, expiry, or run"),
        decidedAt: z.string(),
        reason: z.string().nullable(),
      })
      .nullable()
      .describe("Who decided, when and how (decided items)"),
    heldUntil: z
      .string()
      .optional()
      .describe(
        "An approval held in its undo window (approver rule delay) until then: its approvers may revoke it (POST /v1/decisions decision revoke)",
      ),
    surfacedAt: z.string(),
    updatedAt: z.string(),
    version: z.number(),
  })
  .meta({ id: "InboxItem" });

export const ApprovalsCountsSchema = z
  .object({
    group: z.string(),
    open: z.number().int().describe("Open requests in the group"),
    decided: z.number().int().describe("Decided requests kept in the group's inbox"),
    matching: z
      .number()
      .int()
      .describe(
        "Requests of the listed `status` that match the filters (all of them without filters)",
      ),
  })
  .meta({ id: "ApprovalsCounts" });

export const ApprovalsPageSchema = z
  .object({
    items: z.array(InboxItemSchema),
    nextCursor: z
      .string()
      .nullable()
      .describe("Continues this listing only: with other filters, sort, status or group it is 400"),
    counts: ApprovalsCountsSchema,
  })
  .meta({ id: "ApprovalsPage" });
