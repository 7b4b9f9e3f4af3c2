/**
 * MCP elicitation, durably. A server's `elicitation/create` is an in-flight request
 * that cannot be persisted, so the thread object:
 *
 * 1. surfaces it at once as a normal request — `pending` event, notification with
 *    decision URL and approval link — recorded on the run (`inline_request`), so
 *    `POST /v1/decisions` and the approval page accept decisions for it;
 * 2. waits inline for a bounded window (`elicitationWindowMs`, default 20 s): a
 *    decision recorded meanwhile answers the server directly and is marked applied;
 * 3. when the window closes, cancels upstream and suspends the tool call durably on
 *    the same request (form mode as `kind: "input"`), like any approval. The later
 *    decision re-executes the tool with `ctx.answer`; when the server elicits again
 *    during that re-execution, the decision answers it.
 *
 * Every decision goes through the ledger, so none is lost and none applies twice.
 */
import type { Answer, Request } from "../../../src/core/types";
import { suspendCall, type ElicitationHandler } from "../../../src/core/mcp/bridge";
import type { RunStore } from "../../storage/run-store";
import type { InboxHooks } from "../../outbox/inbox";

export const DEFAULT_ELICITATION_WINDOW_MS = 20_000;

/** In-memory wake-ups for decisions on requests a driver is waiting for inline. */
export class InlineWaiters {
  readonly #waiting = new Map<string, (answer: Answer) => void>();

  wait(requestId: string, ms: number, signal: AbortSignal): Promise<Answer | undefined> {
    return new Promise((resolve) => {
      const done = (answer: Answer | undefined) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#waiting.delete(requestId);
        resolve(answer);
      };
      const onAbort = () => done(undefined);
      const timer = setTimeout(() => done(undefined), ms);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(requestId, done);
    });
  }

  /** True when a driver took the answer. */
  deliver(requestId: string, answer: Answer): boolean {
    const waiter = this.#waiting.get(requestId);
    waiter?.(answer);
    return waiter !== undefined;
  }
}

export interface InlineDeps {
  store: RunStore;
  waiters: InlineWaiters;
  windowMs: number;
  now(): number;
  transaction<T>(fn: () => T): T;
  record(runId: string, type: string, data: unknown): void;
  surface(runId: string, request: Request): Promise<void>;
  /** Called when the driver starts (true) and stops (false) waiting inline, so callers need not wait with it. */
  parked?: (waiting: boolean) => void;
  inbox?: Pick<InboxHooks, "surfaced">;
}

export function durableElicitation(deps: InlineDeps, runId: string): ElicitationHandler {
  return async (asked, ctx) => {
    // Re-execution after a durable suspension: the recorded decision is the answer.
    if (ctx.answer?.ok) {
      return { ...ctx.answer, id: asked.id };
    }

    // Derived from the call, so the inline request and its durable suspension are one request.
    const id = ctx.callId ? `eli_${ctx.callId.replace(/[^A-Za-z0-9_-]/g, "_")}` : asked.id;
    const request: Request = { ...asked, id };
    const earlier = deps.store.decision(id);
    if (earlier && earlier.appliedAt === null) {
      return take(deps, runId, { requestId: id, answer: earlier.answer, askedId: asked.id });
    }

    deps.transaction(() => {
      deps.store.update(runId, { inlineRequest: request }, deps.now());
      deps.record(runId, "pending", { request, inline: true, windowMs: deps.windowMs });
      deps.inbox?.surfaced(deps.store.requireRun(runId), request);
    });
    await deps.surface(runId, request);
    deps.parked?.(true);
    const answer = await deps.waiters.wait(id, deps.windowMs, ctx.signal);
    deps.parked?.(false);
    if (answer) {
      return take(deps, runId, { requestId: id, answer, askedId: asked.id });
    }
    // The window closed: cancel upstream, suspend the call on the same request.
    // `inline_request` stays until the halt is stored, so a decision arriving in between is accepted.
    return suspendCall(request.kind === "authorization" ? request : { ...request, kind: "input" });
  };
}

/** Applies a recorded decision inline. The server's side knows the request by its own id: re-address it. */
function take(
  deps: InlineDeps,
  runId: string,
  decided: { requestId: string; answer: Answer; askedId: string },
): Answer {
  const { requestId, answer, askedId } = decided;
  deps.transaction(() => {
    deps.store.markApplied(requestId, deps.now());
    deps.store.update(runId, { inlineRequest: null }, deps.now());
    const row = deps.store.decision(requestId);
    deps.record(runId, "resumed", {
      requestId,
      decision: row?.decision,
      channel: row?.channel,
      inline: true,
    });
  });
  return { ...answer, id: askedId };
}
