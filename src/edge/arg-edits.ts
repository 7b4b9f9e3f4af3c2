/**
 * Edited arguments from a page form (the inbox and the personal approval page): one field
 * per editable top-level key, named `arg:<key>`, holding JSON (a bare word is taken as
 * text). The result is the full replacement the ledger expects (`args`).
 */

/** Which keys of `args` an approver may change (`true`: all of them). */
export function editableKeys(args: unknown, editable: boolean | string[] | undefined): string[] {
  if (!editable || typeof args !== "object" || args === null || Array.isArray(args)) {
    return [];
  }
  const keys = Object.keys(args);
  return editable === true ? keys : editable.filter((k) => keys.includes(k));
}

/**
 * `args` with each editable field the form sent replaced; undefined when the form edits
 * nothing, so a plain Approve stays a plain approval.
 */
export function editedArgs(
  args: unknown,
  keys: readonly string[],
  field: (name: string) => string | undefined,
): Record<string, unknown> | undefined {
  const edits = keys.filter((key) => field(`arg:${key}`) !== undefined);
  if (edits.length === 0) {
    return undefined;
  }
  const next = { ...(args as Record<string, unknown>) };
  for (const key of edits) {
    const text = field(`arg:${key}`) ?? "";
    try {
      next[key] = JSON.parse(text);
    } catch {
      next[key] = text;
    }
  }
  return next;
}
