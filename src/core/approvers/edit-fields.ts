/**
 * There is one way to edit a call's arguments (docs/security.md "How an edit is made (one
 * way)"): a ballot's `args`, checked by `decideVote` and, at the edge, by the ledger's edit
 * check. The kernel re-runs an approved call with its answer's `data.args`, so whoever builds
 * the answer from a person's vote must never let the `data` that person sent set them: these
 * checks say when a vote tries to.
 */
import * as z from "zod";
import type { Request } from "../types";
import { isRecord } from "./rules";

/**
 * The key an edit may not carry, at its top level: `JSON.parse` makes an own `__proto__` that
 * validators and object spreads then drop or turn into a prototype, so the edit that counts
 * would not be the one sent. (`constructor` or `prototype` stay ordinary own keys: an edit adding
 * one is refused as any added key is, `not_editable` or `invalid_args` by the tool's schema.)
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__"]);

/**
 * Whether the request is about a call whose arguments it carries (`data.args`, as
 * `requireApproval`'s do): an `ok` answer whose `data.args` differs re-runs that call with them
 * (src/core/loop/execute-call.ts). Other requests (an input form) may have a field named `args`.
 */
export function carriesArgs(request: Request): boolean {
  return request.data?.args !== undefined;
}

/**
 * Why this vote's `data` may not be taken (its `args` would change what runs without the edit
 * checks), or undefined. Refused rather than dropped: the approver meant something else than
 * what would run.
 * @example argsInData(refundRequest, { args: { amount: 50000 } }) // "data.args never changes …"
 */
export function argsInData(request: Request, data: unknown): string | undefined {
  if (!carriesArgs(request) || !isRecord(data) || !Object.hasOwn(data, "args")) {
    return undefined;
  }
  return `data.args never changes the arguments of ${request.id}: send an edit as args (a full replacement, where the approver rules let you edit), or leave args out of data`;
}

/** Why these edited arguments are refused for a reserved key, or undefined. */
export function reservedKeyIn(args: Record<string, unknown>): string | undefined {
  const reserved = Object.keys(args).filter((k) => RESERVED_KEYS.has(k));
  return reserved.length === 0
    ? undefined
    : `args may not have the key${reserved.length > 1 ? "s" : ""} ${reserved.map((k) => JSON.stringify(k)).join(", ")}`;
}

/**
 * Edited arguments in a request body (the webhook, chat, AG-UI): any JSON object, kept whole.
 * `z.record` would drop an own `__proto__` key and the edit that counted would silently differ
 * from the one sent; kept, `decideVote` refuses it (`invalid_args`, {@link reservedKeyIn}).
 */
export const editedArgsField = () =>
  z
    .custom<Record<string, unknown>>(isRecord, "must be an object: the tool's full arguments")
    .meta({ type: "object", additionalProperties: {} });
