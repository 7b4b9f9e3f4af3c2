/**
 * What the model is told when a request is refused (docs/architecture.md §6): the contract's first
 * line, then `reason: <text>` — `expired`, `cancelled`, `policy: …` or the approver's own
 * words — so a model that only sees the wire can tell a decline from an expiry and hear why.
 */
import type { Answer, Request } from "../../core/types";

export const MAX_REASON_CHARS = 500;

/** The edge's `refusalText` for every client it builds. */
export function refusalText(request: Request, answer: Answer): string {
  return `declined/expired: ${request.prompt}\nreason: ${foldReason(answer.reason ?? "declined")}`;
}

/** One line (newlines and runs of spaces folded), at most 500 characters. */
export function foldReason(text: string): string {
  const line = text.replace(/\s+/g, " ").trim() || "declined";
  return line.length <= MAX_REASON_CHARS ? line : `${line.slice(0, MAX_REASON_CHARS - 1)}…`;
}

/** The reason line of a tool result, as a model reading the wire would find it. */
export function reasonOf(content: string): string | undefined {
  return /\nreason: (.*)$/.exec(content)?.[1];
}
