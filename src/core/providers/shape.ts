/**
 * Small shape checks for provider replies. Every model response goes through them, so
 * they are plain `typeof` tests rather than a schema library: on this path a zod parse
 * cost more than the rest of the turn's bookkeeping together. Each check answers "is
 * this acceptable?"; callers build a problem description only when one fails.
 */
export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Absent, null, or a string. */
export function isOptionalString(value: unknown): value is string | null | undefined {
  return value === undefined || value === null || typeof value === "string";
}

/** Absent, null, or a number. */
export function isOptionalNumber(value: unknown): value is number | null | undefined {
  return value === undefined || value === null || typeof value === "number";
}

/** Absent, null, or an object. */
export function isOptionalObject(value: unknown): value is JsonObject | null | undefined {
  return value === undefined || value === null || isObject(value);
}

/** The first problem of an array's items (`[i]` + the item's problem), or undefined. */
export function firstItemProblem(
  items: unknown[],
  problemOf: (item: unknown) => string | undefined,
): string | undefined {
  for (let i = 0; i < items.length; i++) {
    const problem = problemOf(items[i]);
    if (problem !== undefined) {
      return `[${i}]${problem}`;
    }
  }
  return undefined;
}

/** The problem of an optional object usage block whose fields must be numbers when present. */
export function usageProblem(usage: unknown, fields: readonly string[]): string | undefined {
  if (usage === undefined || usage === null) {
    return undefined;
  }
  if (!isObject(usage)) {
    return ": expected an object";
  }
  for (const field of fields) {
    if (!isOptionalNumber(usage[field])) {
      return `.${field}: expected a number`;
    }
  }
  return undefined;
}
