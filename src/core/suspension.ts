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

/**
 * A request with `data[RUN_ON_REFUSAL]: true` re-executes its tool on a refusal too, with the
 * refused answer in `ctx.answer`, so the tool can tell whoever asked (an MCP server is sent
 * `decline` or `cancel`). The model still hears the refusal, followed by what the tool said.
 */
export const RUN_ON_REFUSAL = "runOnRefusal";

/**
 * A pending result with `metadata[CONTINUES]: true`, given by the re-execution that took an
 * answer, is the same call's next step (an MCP server's next question, a remote task polled
 * again), not a second suspension on the same request: the call stays suspended on the new
 * request. The tool bounds how often it does this; the kernel adds MAX_CONTINUATIONS inline.
 */
export const CONTINUES = "continues";

/** How many continuations one inline (`waitFor`) resolution follows before `unresolved`. */
export const MAX_CONTINUATIONS = 64;

export const runsOnRefusal = (request: Request): boolean => request.data?.[RUN_ON_REFUSAL] === true;

export const isContinuation = (result: ToolResult): boolean =>
  result.metadata?.[CONTINUES] === true;
