/**
 * A run's waiting request as an MCP 2026-07-28 input request, and the host's input response
 * back into our ledger. Only a request the run's caller may answer (no approver rules) is
 * asked of the host: an `input` as a form elicitation (its `data.schema`, or one text answer),
 * an `authorization` with a sign-in URL as a URL elicitation (the sign-in callback decides it;
 * the host's `accept` only says the person went there). Anything else — an approval, a ruled
 * request — waits for its approvers, and the call becomes a task instead.
 */
import type { Request as AgentRequest } from "../../../../core/types";
import type { RunView, ThreadRpc } from "../../../protocol";
import { answerRequest, callerMayAnswer } from "../../answer-request";
import { isRemoteTaskRequest } from "../../../../core/a2a/remote-task";
import { elicitationModes, INVALID_PARAMS, type ModernContext, RpcError } from "./wire";

const DEFAULT_INPUT_SCHEMA = {
  type: "object",
  properties: { answer: { type: "string", title: "Your answer" } },
  required: ["answer"],
};

export type InputRequest = { method: "elicitation/create"; params: Record<string, unknown> };

/** The input request for `request`, or undefined when this host cannot (or may not) answer it. */
export function inputRequestFor(
  ctx: Pick<ModernContext, "capabilities">,
  request: AgentRequest,
): InputRequest | undefined {
  if (!callerMayAnswer(request) || isRemoteTaskRequest(request)) {
    return undefined;
  }
  const modes = elicitationModes(ctx.capabilities);
  if (request.kind === "authorization" && request.url && modes.url) {
    return {
      method: "elicitation/create",
      params: { mode: "url", message: request.prompt, url: request.url },
    };
  }
  if (request.kind === "input" && modes.form) {
    const schema = request.data?.schema as Record<string, unknown> | undefined;
    return {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: request.prompt,
        requestedSchema: schema ?? DEFAULT_INPUT_SCHEMA,
      },
    };
  }
  return undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Records the host's responses for the requests it was asked (`asked`; keys are request ids)
 * through the ledger, channel `mcp`. A response for a request already answered (a repeated
 * retry) or no longer waiting is ignored; one the ledger refuses otherwise is a JSON-RPC
 * error. Returns the id of a request just answered, if any (its resume may not have started).
 */
export async function applyInputResponses(
  ctx: ModernContext,
  { stub, view }: { stub: ThreadRpc; view: RunView },
  { asked, responses }: { asked: string[]; responses: unknown },
): Promise<string | undefined> {
  if (responses !== undefined && !isRecord(responses)) {
    throw new RpcError(INVALID_PARAMS, "inputResponses must be an object keyed by request id");
  }
  let answered: string | undefined;
  for (const requestId of asked) {
    const response = responses?.[requestId];
    if (!isRecord(response)) {
      continue;
    }
    const action = response.action;
    if (action !== "accept" && action !== "decline" && action !== "cancel") {
      throw new RpcError(
        INVALID_PARAMS,
        `inputResponses.${requestId}.action must be accept, decline or cancel`,
      );
    }
    const request = view.pending?.id === requestId ? view.pending : undefined;
    if (action === "accept" && request?.kind === "authorization") {
      // The sign-in itself decides this request (its callback); accepting only opened the URL.
      continue;
    }
    const decision = action === "accept" ? "approve" : action;
    const outcome = await answerRequest(
      { stub, run: view },
      {
        requestId,
        decision,
        ...(decision === "approve"
          ? { data: isRecord(response.content) ? response.content : {} }
          : {}),
      },
      { caller: ctx.caller, channel: "mcp" },
    );
    if (outcome.ok) {
      answered = requestId;
    } else if (outcome.code !== "already_decided" && outcome.code !== "not_pending") {
      throw new RpcError(INVALID_PARAMS, outcome.message);
    }
  }
  return answered;
}
