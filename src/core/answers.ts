/**
 * Answer builders and suspension helpers: the seed of the contract.
 * A tool result is a suspension iff `metadata.pending` is a `Request`.
 */
import type { Answer, Request, ToolResult } from "./types";
import { RequestSchema, isPlainRequest } from "./wire";

function requireId(id: unknown, what = "id"): string {
  if (typeof id !== "string" || id.length === 0) {
    throw new TypeError(`${what} must be a non-empty string, got ${describe(id)}`);
  }
  return id;
}

function describe(value: unknown): string {
  if (value === null) {
    return "null";
  }
  if (Array.isArray(value)) {
    return "an array";
  }
  return typeof value === "string" ? JSON.stringify(value) : `a ${typeof value}`;
}

/**
 * The `ok` half of the answer contract: the reply a suspended tool resumes with.
 * @example answerOutput("req-1", { amount: 10 }) // { id: "req-1", ok: true, data: { amount: 10 } }
 */
export function answerOutput(id: string, data?: unknown): Answer {
  requireId(id);
  return data === undefined ? { id, ok: true } : { id, ok: true, data };
}

/**
 * A refusal. `reason` defaults to `"declined"`; `null` means "no reason" (no key);
 * anything but a string or null/undefined throws a `TypeError`.
 * @example answerDeclined("req-1", "policy: amount over threshold")
 */
export function answerDeclined(id: string, reason: string | null | undefined = "declined"): Answer {
  requireId(id);
  if (reason === null || reason === undefined) {
    return { id, ok: false };
  }
  if (typeof reason !== "string") {
    throw new TypeError(`answerDeclined: reason must be a string or null, got ${describe(reason)}`);
  }
  return { id, ok: false, reason };
}

let counter = 0;
/** A request id unique enough to route a decision: time + randomness + a process counter. */
export function newRequestId(prefix = "req"): string {
  const random = crypto.getRandomValues(new Uint8Array(8));
  const hex = Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
  counter = (counter + 1) % 1_000_000;
  return `${prefix}_${Date.now().toString(36)}${hex}${counter.toString(36)}`;
}

export interface PendingInit {
  kind: Request["kind"];
  prompt: string;
  id?: string;
  url?: string;
  data?: Record<string, unknown>;
  expiresAt?: string | Date;
}

/**
 * A tool result that suspends the run with a `Request` (an id is generated when absent).
 * @example return pending({ kind: "approval", prompt: "Refund $120 on order 42?" })
 */
export function pending(init: PendingInit): ToolResult {
  const request: Request = {
    id: init.id === undefined ? newRequestId() : requireId(init.id),
    kind: init.kind,
    prompt: init.prompt,
  };
  if (init.url !== undefined) {
    request.url = init.url;
  }
  if (init.data !== undefined) {
    request.data = init.data;
  }
  if (init.expiresAt !== undefined) {
    request.expiresAt =
      init.expiresAt instanceof Date ? init.expiresAt.toISOString() : init.expiresAt;
  }
  if (!isPlainRequest(request)) {
    RequestSchema.parse(request);
  }
  return { output: `pending: ${request.prompt}`, isError: true, metadata: { pending: request } };
}

/** A suspension asking a person to authorize out of band at `url` (credentials never travel as input). */
export function authRequired(
  url: string,
  prompt = "Authorization required to continue",
): ToolResult {
  return pending({ kind: "authorization", prompt, url });
}

/** The request a result suspends on, or undefined. */
export function pendingOf(result: ToolResult | undefined | null): Request | undefined {
  const candidate = result?.metadata?.pending;
  // Most results have no pending key: answer that without going through zod's failure path.
  if (candidate === undefined || candidate === null) {
    return undefined;
  }
  return isPlainRequest(candidate) || RequestSchema.safeParse(candidate).success
    ? (candidate as Request)
    : undefined;
}

/** True iff the result is a suspension (its `metadata.pending` is a valid `Request`). */
export function isPending(result: ToolResult | undefined | null): boolean {
  return pendingOf(result) !== undefined;
}
