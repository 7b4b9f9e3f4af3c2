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

/**
 * A plain JSON object as zod's `record` and `looseObject` see one (Object.prototype or
 * null prototype, no constructor of its own that is a function).
 */
function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== "object" || x === null || Array.isArray(x)) {
    return false;
  }
  const proto = Object.getPrototypeOf(x);
  if (proto !== Object.prototype && proto !== null) {
    return false;
  }
  const ctor = (x as { constructor?: unknown }).constructor;
  return ctor === Object || ctor === undefined || typeof ctor !== "function";
}

const nonEmptyString = (x: unknown) => typeof x === "string" && x.length > 0;

/**
 * True when `x` is certainly a valid `Request` in its common shape (no `expiresAt`): the
 * check every suspension and resume makes, by hand, because zod's parse of it ran cold
 * on every resume. False means "ask `RequestSchema`", which stays the authority and
 * gives the error messages.
 */
export function isPlainRequest(x: unknown): boolean {
  return (
    isPlainObject(x) &&
    nonEmptyString(x.id) &&
    nonEmptyString(x.kind) &&
    typeof x.prompt === "string" &&
    (x.url === undefined || typeof x.url === "string") &&
    (x.data === undefined || isPlainObject(x.data)) &&
    x.expiresAt === undefined
  );
}

/** True when `x` is certainly a valid `Answer`; false means "ask `AnswerSchema`". */
export function isPlainAnswer(x: unknown): boolean {
  return (
    isPlainObject(x) &&
    nonEmptyString(x.id) &&
    typeof x.ok === "boolean" &&
    (x.reason === undefined || (typeof x.reason === "string" && x.ok === false))
  );
}
