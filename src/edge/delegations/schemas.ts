/** The delegation routes' bodies (issue 42): they validate requests and feed /openapi.json. */
import * as z from "zod";
import { identityField } from "../http/schemas";

/** The longest a delegation may run: a long absence is a change of the groups, not a delegation. */
export const MAX_DELEGATION_DAYS = 90;

export const DelegationCreateSchema = z
  .strictObject({
    from: identityField().describe(
      "The member who is away: the caller themselves (x-toolnexus-user or the Access identity)",
    ),
    to: identityField().describe("The member who decides for them (a member of any group)"),
    until: z.iso
      .datetime({ offset: true })
      .describe(`RFC 3339; in the future and at most ${MAX_DELEGATION_DAYS} days ahead`),
    groups: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(50)
      .optional()
      .describe(
        "Only requests of these groups (each one of from's); absent: whatever from may decide",
      ),
  })
  .meta({ id: "DelegationCreate" });

export const DelegationSchema = z
  .object({
    id: z.string(),
    from: z.string().describe("Member id"),
    to: z.string().describe("Member id"),
    until: z.string(),
    groups: z.array(z.string()).optional(),
    createdAt: z.string(),
    endedAt: z.string().nullable().describe("Set once DELETE ended it"),
  })
  .meta({ id: "Delegation" });

export const DelegationListSchema = z
  .object({ items: z.array(DelegationSchema).describe("Running delegations, oldest first") })
  .meta({ id: "DelegationList" });
