/**
 * zod schemas of the wire types. Keys are byte-exact. Unknown extra keys are
 * preserved (`looseObject`): a newer peer may add fields, and a request passed
 * through us must arrive unchanged.
 */
import * as z from "zod";

const nonEmpty = z.string().min(1, "must be a non-empty string");

export const RequestSchema = z.looseObject({
  id: nonEmpty,
  kind: nonEmpty,
  prompt: z.string(),
  url: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
});

export const AnswerSchema = z
  .looseObject({
    id: nonEmpty,
    ok: z.boolean(),
    data: z.unknown().optional(),
    reason: z.string().optional(),
  })
  .refine((a) => a.ok === false || a.reason === undefined, {
    message: "reason is only allowed when ok is false",
    path: ["reason"],
  });
