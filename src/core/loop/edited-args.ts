/** Arguments an answer changes: an approver's edit, or a host's migration (./execute-call.ts). */
import type { Answer, Request } from "../types";
import { canonicalJson } from "../schema/canonical-json";

/**
 * An `ok` answer whose `data.args` is set re-executes the call once with those arguments
 * (an approver's edit, or with `data.argsMigrated: true` a host's migration). Only for requests that carry the call's arguments (`data.args`,
 * as `requireApproval`'s do), so an input form with a field named `args` changes nothing.
 */
export function editedArgs(request: Request, answer: Answer, args: unknown): unknown {
  const data = answer.data;
  if (request.data?.args === undefined || typeof data !== "object" || data === null) {
    return undefined;
  }
  const next = (data as { args?: unknown }).args;
  if (next === undefined || canonicalJson(next) === canonicalJson(args)) {
    return undefined;
  }
  return next;
}

/** A host migrated the arguments (`data.argsMigrated: true` beside `data.args`); nobody edited them. */
export function isMigrated(answer: Answer): boolean {
  const data = answer.data;
  return (
    typeof data === "object" &&
    data !== null &&
    (data as { argsMigrated?: unknown }).argsMigrated === true
  );
}
