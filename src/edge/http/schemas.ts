/**
 * zod schemas of the HTTP API. The same objects validate requests and generate
 * /openapi.json, so the document cannot drift from the code.
 */
import { UndoSchema } from "./openapi/undo";
import * as z from "zod";
import { AnswerSchema, RequestSchema } from "../../core/wire";
import { CHANNELS } from "../protocol";
import { editedArgsField } from "../../core/approvers/edit-fields";
import { policyViewFields } from "../policy/schemas";
import { ToolCallRecordSchema } from "./openapi/tool-calls";

export const THREAD_ID = /^[A-Za-z0-9_-]{1,128}$/;
export const MAX_INPUT_CHARS = 32_000;
export const MAX_DECISION_BYTES = 64 * 1024;
export const MAX_RUN_BODY_BYTES = 256 * 1024;
/** `metadata` of a run and `data` of a decision, as JSON. */
export const MAX_JSON_FIELD_BYTES = 64 * 1024;
/** An approver or requester identity (a member id, an email, `slack:T/U`): RFC 5321's longest address. */
export const MAX_IDENTITY_CHARS = 320;

/** A member id or identity in a request body, trimmed; one rule wherever a body names a person. */
export const identityField = () =>
  z.string().trim().min(1, "must not be empty").max(MAX_IDENTITY_CHARS);

/** An `argsHash`: base64url (no padding) of a SHA-256, 43 characters. */
export const argsHashField = () =>
  z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be an argsHash (43 base64url characters)");

/** The longest reason any channel stores (the model sees at most 500 characters of it). */
export const MAX_REASON_CHARS = 1000;

const jsonBytes = (value: unknown) =>
  new TextEncoder().encode(JSON.stringify(value) ?? "").byteLength;
const withinFieldLimit = (value: unknown) => jsonBytes(value) <= MAX_JSON_FIELD_BYTES;
const FIELD_TOO_LARGE = `must be at most ${MAX_JSON_FIELD_BYTES / 1024} KiB as JSON`;

const httpUrl = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      return ["http:", "https:"].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL");

export const RunCreateSchema = z
  .strictObject({
    agent: z.string().min(1).max(64).describe("Name of an agent from GET /v1/agents"),
    input: z
      .string()
      .min(1, "must not be empty")
      .max(MAX_INPUT_CHARS)
      .describe("The user's message"),
    threadId: z
      .string()
      .regex(THREAD_ID, "must be 1–128 characters of A–Z, a–z, 0–9, _ or -")
      .optional()
      .describe("Conversation to continue; a new one is created when absent"),
    callbackUrl: httpUrl.optional().describe("Receives a signed POST for every pending request"),
    metadata: z
      .record(z.string(), z.unknown())
      .refine(withinFieldLimit, FIELD_TOO_LARGE)
      .optional()
      .describe("Echoed in GET and in notifications"),
    requestedBy: identityField()
      .optional()
      .describe(
        "Who asked (an identity such as an email); shown to approvers, who may not approve their own request when rules apply",
      ),
  })
  .meta({ id: "RunCreate" });

export const DecisionSchema = z
  .strictObject({
    runId: z.string().min(1).max(300),
    requestId: z.string().min(1).max(300),
    decision: z
      .enum(["approve", "decline", "cancel", "revoke"])
      .describe(
        "revoke: an approver of the request takes back its approval while the rule's delay (the undo window) runs; the call is declined with reason `revoked by <who>`. After the delay: 409 request_not_pending",
      ),
    data: z
      .unknown()
      .refine(withinFieldLimit, FIELD_TOO_LARGE)
      .optional()
      .describe(
        "With approve: the answer's data (validated against data.schema for input requests). Never the arguments: on a request about a tool call, data.args is 400 invalid_data (edit with args)",
      ),
    reason: z
      .string()
      .max(MAX_REASON_CHARS)
      .optional()
      .describe("With decline/cancel: the reason the model sees"),
    args: editedArgsField()
      .optional()
      .describe(
        "With approve on a request whose rules make arguments editable: the tool's full arguments, edited. The only way to edit: data.args is refused (400 invalid_data)",
      ),
    argsHash: argsHashField()
      .optional()
      .describe(
        "With approve: the version of the arguments the approver saw (the request's argsHash). Required once the arguments were edited; an older version is 409 args_changed",
      ),
    decidedBy: identityField()
      .optional()
      .describe("Who decided (a member id or identity): required on a request with approver rules"),
  })
  .meta({ id: "Decision" });

export const RunLinkCreateSchema = z
  .strictObject({
    requestId: z.string().min(1).max(300).describe("A pending request of the run"),
    approver: identityField().describe(
      "The approver the link speaks for: a member id or one of their identities",
    ),
  })
  .meta({ id: "RunLinkCreate" });

export const RunLinkSchema = z
  .object({
    url: z.string().describe("The approval page, signed in as the approver (no Access needed)"),
    expiresAt: z.string().describe("When the request expires; the link dies with it"),
  })
  .meta({ id: "RunLink" });

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: "Error" });

export const LinksSchema = z
  .object({ self: z.string(), events: z.string(), cancel: z.string() })
  .meta({ id: "RunLinks" });

export const RunStatusSchema = z
  .enum(["running", "pending", "done", "incomplete", "failed", "cancelled", "compensated"])
  .describe("compensated: an undo took back what the run did (POST /v1/runs/{runId}/undo)")
  .meta({ id: "RunStatus" });

export const RunAcceptedSchema = z
  .object({ runId: z.string(), threadId: z.string(), status: RunStatusSchema, links: LinksSchema })
  .meta({ id: "RunAccepted" });

const UsageSchema = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  totalTokens: z.number(),
});

const ChannelSchema = z.enum(CHANNELS);

const onBehalfOfField = () =>
  z.string().optional().describe("Whom decidedBy stood in for (issue 42)");

export const DecisionRecordSchema = z
  .object({
    requestId: z.string(),
    decision: z.enum(["approve", "decline", "cancel", "expire", "revoke"]),
    answer: AnswerSchema,
    channel: ChannelSchema,
    decidedBy: z.string().nullable(),
    webhookId: z.string().nullable(),
    decidedAt: z.string(),
    appliedAt: z.string().nullable(),
    onBehalfOf: onBehalfOfField(),
  })
  .meta({ id: "DecisionRecord" });

export const VoteSchema = z
  .object({
    decidedBy: z.string().describe("The member id"),
    decision: z.enum(["approve", "decline", "cancel"]),
    channel: ChannelSchema,
    args: z.unknown().optional().describe("Set on an edit: the full arguments this vote approved"),
    argsHash: z.string().optional().describe("The version of the arguments the vote was cast on"),
    at: z.string(),
    reset: z.literal(true).optional().describe("A later edit voided this approval"),
    onBehalfOf: onBehalfOfField(),
  })
  .meta({ id: "Vote" });

export const ApprovalStateSchema = z
  .object({
    requestId: z.string(),
    rules: z.record(z.string(), z.unknown()).describe("The request's approver rules"),
    approvals: z.number().describe("Approvals that count now"),
    needed: z.number().describe("Approvals that apply the request (the quorum)"),
    args: z
      .record(z.string(), z.unknown())
      .describe("The arguments now up for approval: the latest edit's, else the request's"),
    argsHash: z
      .string()
      .describe(
        "Their version (base64url SHA-256 of their canonical JSON): an approval carries it",
      ),
    votes: z.array(VoteSchema).describe("Every vote, oldest first"),
    refused: z
      .array(
        z.object({
          decidedBy: z.string(),
          channel: ChannelSchema,
          code: z.enum(["not_an_approver", "own_request"]),
          at: z.string(),
        }),
      )
      .describe("Attempts refused because of who made them"),
    reminders: z.number(),
    escalatedAt: z.string().nullable(),
    ...policyViewFields(),
  })
  .meta({ id: "ApprovalState" });

export const TreeHandleSchema = z
  .object({
    handle: z.string().describe('The handle path, e.g. "root/coordinator.1/refunds.1"'),
    agent: z.string(),
    state: z.enum(["idle", "running", "suspended", "closed"]),
    turns: z.number(),
    usage: UsageSchema,
    pending: RequestSchema.optional().describe("The request a suspended handle waits on"),
  })
  .meta({ id: "TreeHandle" });

export const RunViewSchema = z
  .object({
    runId: z.string(),
    threadId: z.string(),
    agent: z.string(),
    status: RunStatusSchema,
    input: z.string(),
    pending: RequestSchema.extend({
      argsHash: z
        .string()
        .describe("The version of the arguments now up for approval: an approval carries it"),
      ...policyViewFields(),
    })
      .nullable()
      .describe("The surfaced request"),
    expiresAt: z.string().nullable(),
    text: z.string().nullable(),
    usage: UsageSchema,
    turns: z.number(),
    model: z.string().nullable(),
    toolCalls: z.array(ToolCallRecordSchema),
    toolCallCount: z.number(),
    decisions: z.array(DecisionRecordSchema),
    requests: z
      .array(ApprovalStateSchema)
      .describe("Requests with approver rules: votes and refused attempts per request"),
    openRequests: z
      .array(RequestSchema)
      .optional()
      .describe(
        "Only while the run waits on more than `pending`: every request open now, `pending` first (other suspended calls of the turn, a call's several requests, e.g. an MCP server's input requests), each decidable now through POST /v1/decisions",
      ),
    requestedBy: z.string().nullable(),
    agentVersion: z
      .string()
      .nullable()
      .describe(
        "The agent version the run started, or last suspended, under (null: stored before versions)",
      ),
    receiptCount: z
      .number()
      .int()
      .min(0)
      .describe(
        "How many decision receipts the run has: GET /v1/runs/{runId}/receipts returns as many",
      ),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .describe(
        "Set when the run failed. code: value_too_large (the message names the value, its size and the limit), config_error, provider_error, run_aborted, driver_failed, or a kernel error's own",
      ),
    limit: z
      .string()
      .nullable()
      .describe('What stopped an incomplete run: "maxTurns", "length" or "content_filter"'),
    metadata: z.unknown(),
    createdAt: z.string(),
    updatedAt: z.string(),
    cancelledAt: z.string().nullable(),
    links: LinksSchema,
    approvalUrl: z
      .string()
      .optional()
      .describe("Signed link to the approval page of the pending request"),
    transcript: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .describe("With ?transcript=true"),
    tree: z
      .array(TreeHandleSchema)
      .optional()
      .describe(
        "The sub-agent tree of an agent with a team: the run's own agent first, then each child (absent otherwise)",
      ),
    undo: UndoSchema.optional().describe("The undo, once asked (POST /v1/runs/{runId}/undo)"),
  })
  .meta({ id: "Run" });

export const DecisionAcceptedSchema = z
  .object({
    runId: z.string(),
    requestId: z.string(),
    duplicate: z.boolean(),
    decision: DecisionRecordSchema.nullable().describe(
      "The ledger entry; null while a request with rules waits for more votes",
    ),
    votes: z
      .number()
      .optional()
      .describe("With rules: approvals of the current arguments that count now"),
    needed: z.number().optional().describe("With rules: approvals that apply the request"),
  })
  .meta({ id: "DecisionAccepted" });

const DurationSchema = z.union([z.number(), z.string()]).describe('ms, or "15m" | "4h" | "2d"');

/** The static parts of a tool's approval rules (`describeApproval` in src/core/tools/approval.ts). */
export const ApprovalDescriptionSchema = z
  .object({
    needsApproval: z
      .enum(["always", "conditional"])
      .describe("conditional: only some arguments need approval (a `when`)"),
    group: z.string().optional(),
    anyOf: z.array(z.string()).optional(),
    quorum: z.number().optional(),
    editable: z.union([z.boolean(), z.array(z.string())]).optional(),
    remindEvery: DurationSchema.optional(),
    escalate: z.object({ after: DurationSchema, to: z.string() }).optional(),
    warnBefore: DurationSchema.optional(),
    rulesByArgs: z
      .literal(true)
      .optional()
      .describe("The rules depend on the arguments; only needsApproval is static"),
  })
  .meta({ id: "ApprovalDescription" });

export const AgentToolSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()).describe("JSON Schema of the arguments"),
    approval: ApprovalDescriptionSchema.optional().describe("Absent: the tool never asks"),
  })
  .meta({ id: "AgentTool" });

const PENDING = "Runs waiting on a request, by the version they suspended under";
export const AgentsSchema = z
  .object({
    agents: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        version: z
          .string()
          .describe("The agent's version: runs and requests record the one they ran under"),
        pendingByVersion: z.record(z.string(), z.number().int().nonnegative()).describe(PENDING),
        tools: z.array(z.string()).describe("Tool names (details in toolDetails)"),
        toolDetails: z.array(AgentToolSchema),
      }),
    ),
  })
  .meta({ id: "Agents" });

/** Turns zod issues into the API's `issues` list: `path` is dotted, `(root)` for the body itself. */
export function issuesOf(error: {
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>;
}): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join(".") : "(root)",
    message: issue.message,
  }));
}
