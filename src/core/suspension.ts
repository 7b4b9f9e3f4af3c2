/**
 * The results the suspension rule (docs/architecture.md §3) feeds back to the model.
 * One place for the texts so the in-process, durable and policy paths agree.
 */
import type { Request, ToolResult } from "./types";

/** A refused (declined, cancelled, expired, policy) request: the tool does not run again. */
export function declinedResult(request: Request, reason?: string): ToolResult {
  return {
    output: `declined/expired: ${request.prompt}`,
    isError: true,
    metadata: reason === undefined ? {} : { reason },
  };
}

/** A tool that suspended again after its request was answered: never loop on one request. */
export function unresolvedResult(request: Request): ToolResult {
  return { output: `unresolved: ${request.prompt}`, isError: true };
}
