/** The batch decision route's bodies (issue 42 item 1): they validate requests and feed /openapi.json. */
import * as z from "zod";
import { argsHashField, MAX_REASON_CHARS } from "../http/schemas";
import { MAX_BATCH_ITEMS } from "./decide-batch";

/** 100 items with a full reason each, and room for the rest. */
export const MAX_BATCH_BYTES = 256 * 1024;

export const BatchItemSchema = z
  .strictObject({
    runId: z.string().min(1).max(300),
    requestId: z.string().min(1).max(300),
    decision: z.enum(["approve", "decline", "cancel"]),
    argsHash: argsHashField()
      .optional()
      .describe(
        "With approve: the version of the arguments the approver reviewed; an older one is status 409 args_changed in the item's result",
      ),
    reason: z
      .string()
      .max(MAX_REASON_CHARS)
      .optional()
      .describe("With decline/cancel: the reason the model sees"),
  })
  .meta({ id: "BatchDecisionItem" });

export const BatchSchema = z
  .strictObject({
    decisions: z
      .array(BatchItemSchema)
      .min(1, "must hold at least one decision")
      .max(MAX_BATCH_ITEMS, `must hold at most ${MAX_BATCH_ITEMS} decisions`)
      .describe(
        `1 to ${MAX_BATCH_ITEMS} decisions, each recorded on its own (more is 400 too_many_decisions)`,
      ),
  })
  .meta({ id: "BatchDecisions" });

export const BatchResultSchema = z
  .object({
    runId: z.string(),
    requestId: z.string(),
    status: z
      .number()
      .int()
      .describe(
        "The HTTP status this decision would get on its own: 202 recorded, 200 identical repeat, else its refusal's",
      ),
    code: z.string().optional().describe("A refusal's code (as in { error: { code } })"),
    message: z.string().optional(),
    duplicate: z.boolean().optional(),
    votes: z.number().optional().describe("With rules: approvals that count now"),
    needed: z.number().optional().describe("With rules: approvals that apply the request"),
    argsHash: z
      .string()
      .optional()
      .describe("With args_changed: the version of the arguments now up for approval"),
  })
  .meta({ id: "BatchDecisionResult" });

export const BatchResultsSchema = z
  .object({ results: z.array(BatchResultSchema).describe("One per decision, in the same order") })
  .meta({ id: "BatchDecisionResults" });
