/**
 * The results the suspension rule (docs/architecture.md §3) feeds back to the model.
 * One place for the texts so the in-process, durable and policy paths agree.
 */
import type { Message, Request, ToolResult } from "./types";
import { RequestSchema, isPlainRequest } from "./wire";

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

/**
 * A pending result with `metadata[ALSO_PENDING]: Request[]` waits on those requests too, at the
 * same time as `metadata.pending` (an MCP server's several input requests of one round). They
 * are answered in any order: each answer re-executes the call with `ctx.answer` and
 * `ctx.answered` as for `pending`, and the call either suspends again on the ones left (a
 * CONTINUES result that keeps their ids), or resolves. The run's `pending` stays the first;
 * the others ride on the call's placeholder (`alsoPending`), where a host finds them.
 */
export const ALSO_PENDING = "alsoPending";

/** The other requests a pending result waits on at the same time (valid requests only). */
export function alsoPendingOf(result: ToolResult): Request[] {
  const also = result.metadata?.[ALSO_PENDING];
  if (!Array.isArray(also)) {
    return [];
  }
  return also.filter(
    (candidate): candidate is Request =>
      isPlainRequest(candidate) || RequestSchema.safeParse(candidate).success,
  );
}

type ToolMessage = Extract<Message, { role: "tool" }>;

/** Every request a call's placeholder is suspended on: `pending` first, then `alsoPending`. */
export function requestsOf(slot: ToolMessage | undefined): Request[] {
  return slot?.pending ? [slot.pending, ...(slot.alsoPending ?? [])] : [];
}
