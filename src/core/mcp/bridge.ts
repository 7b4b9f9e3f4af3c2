/**
 * The elicitation bridge: answers a server's `elicitation/create` through a
 * pluggable handler, per call.
 *
 * In process the handler is the toolkit's `waitFor` (the request is shown to a person
 * and the server waits inline). The edge plugs in its own `onElicitation`: a Durable
 * Object can wait inline for a bounded window and, when it closes, return
 * `suspendCall(request)` — the server is sent `cancel`, and the tool call's result
 * becomes a pending `Request` (a normal durable suspension). When the decision arrives
 * the tool is re-executed with `ctx.answer`; if the server elicits again during that
 * re-execution, the handler sees the decision as `ctx.answer` and may answer with it
 * (re-addressed to the new request's id: `{ ...ctx.answer, id: request.id }`).
 */
import type { Answer, Request, WaitFor } from "../types";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { CallRegistry, McpCall } from "./calls";
import { errorMessage } from "../errors";
import { RequestSchema } from "../wire";
import {
  elicitationNote,
  requestFromElicitation,
  resultFromAnswer,
  type ElicitationParams,
} from "./elicitation";

export interface ElicitationContext {
  /** The server's config name. */
  server: string;
  /** Toolkit name of the tool whose call elicited, when known. */
  tool?: string;
  /** `Context.callId` of that call (stable across the post-answer re-execution). */
  callId?: string;
  runId?: string;
  /** `Context.answer` of that call: set on the re-execution after a durable suspension. */
  answer?: Answer;
  /** The server's params, as sent. */
  elicitation: ElicitationParams;
  /** Aborted when the server withdraws the request, or the call is aborted or times out. */
  signal: AbortSignal;
  /** `Context.waitFor` of that call: its loop's host answers requests inline. */
  waitFor?: WaitFor;
}

/** Tells the bridge to cancel upstream and suspend the tool call durably on `suspend`. */
export interface SuspendCall {
  suspend: Request;
}

export type ElicitationReply = Answer | SuspendCall;

/**
 * Answers one elicitation. An `Answer` must echo `request.id`; a `SuspendCall` turns
 * the calling tool's result into a pending suspension (only when the call is known).
 * @example
 * const onElicitation: ElicitationHandler = async (request, ctx) =>
 *   (await decisionWithin(request, 20_000)) ?? suspendCall(request);
 */
export type ElicitationHandler = (
  request: Request,
  ctx: ElicitationContext,
) => Promise<ElicitationReply> | ElicitationReply;

/** @example return suspendCall({ ...request, kind: "input" }); */
export function suspendCall(request: Request): SuspendCall {
  RequestSchema.parse(request);
  return { suspend: request };
}

export function isSuspendCall(reply: unknown): reply is SuspendCall {
  return typeof reply === "object" && reply !== null && "suspend" in reply;
}

/**
 * `onElicitation` wins; else the toolkit's `waitFor`; else the caller's: the loop's
 * `ctx.waitFor` when its host answers inline (a client `waitFor`), otherwise the call
 * suspends on the request and the re-execution with the person's answer answers the
 * server's next elicitation with it. So elicitation is always advertised.
 */
export function elicitationHandler(options: {
  onElicitation?: ElicitationHandler;
  waitFor?: WaitFor;
}): ElicitationHandler {
  if (options.onElicitation) {
    return options.onElicitation;
  }
  const waitFor = options.waitFor;
  return waitFor ? (request) => waitFor(request) : askCaller;
}

const askCaller: ElicitationHandler = (request, ctx) => {
  // Named after the call, so the re-execution knows its own answer from any other (an approval's).
  const id = ctx.callId ? `eli_${ctx.callId.replace(/[^A-Za-z0-9_-]/g, "_")}` : request.id;
  if (ctx.answer?.ok && ctx.answer.id === id) {
    return { ...ctx.answer, id: request.id };
  }
  return ctx.waitFor ? ctx.waitFor(request) : suspendCall({ ...request, id });
};

/** The function the MCP client runs for each `elicitation/create` from `server`. */
export function elicitationResponder(
  server: string,
  calls: CallRegistry,
  { handler, attributed }: { handler: ElicitationHandler; attributed: boolean },
) {
  return async (
    raw: ElicitationParams,
    extra: { requestId: unknown; signal: AbortSignal },
  ): Promise<ElicitResult> => {
    const params = (raw.mode === undefined ? { ...raw, mode: "form" } : raw) as ElicitationParams;
    const call = calls.attribute(extra.requestId);
    const request = requestFromElicitation(params, { server, tool: call?.tool, attributed });
    const signal = call ? AbortSignal.any([extra.signal, call.signal]) : extra.signal;
    const ctx: ElicitationContext = { server, elicitation: params, signal };
    if (call) {
      Object.assign(
        ctx,
        definedOnly({
          tool: call.tool,
          callId: call.ctx.callId,
          runId: call.ctx.runId,
          answer: call.ctx.answer,
          waitFor: call.ctx.waitFor,
        }),
      );
    }

    call?.deadline.pause();
    try {
      let reply: ElicitationReply;
      try {
        reply = await untilAborted(Promise.resolve(handler(request, ctx)), signal);
      } catch (error) {
        if (!signal.aborted) {
          note(
            call,
            `note: the server's question "${request.prompt}" could not be asked (${errorMessage(error)}), so the server was sent "cancel"`,
          );
        }
        return { action: "cancel" };
      }
      if (isSuspendCall(reply)) {
        call?.suspend(reply.suspend);
        return { action: "cancel" };
      }
      if (reply.id !== request.id) {
        note(
          call,
          `note: the answer to "${request.prompt}" was for another request (${JSON.stringify(reply.id)}), so the server was sent "cancel"`,
        );
        return { action: "cancel" };
      }
      const outcome = resultFromAnswer(reply, params);
      if (outcome.problems) {
        note(call, elicitationNote(request, outcome.problems));
      }
      return outcome.result;
    } finally {
      call?.deadline.resume();
    }
  };
}

function note(call: McpCall | undefined, text: string): void {
  call?.notes.push(text);
}

function definedOnly<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(record).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
