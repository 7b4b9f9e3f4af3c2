/**
 * An MCP 2026-07-28 `input_required` result ⇄ the suspension contract (docs/architecture.md
 * §3): the server's input request becomes one of our requests (an `elicitation/create` form ⇒
 * `kind: "input"` with `data.schema`; URL mode ⇒ `kind: "authorization"` with `url`, as for a
 * 2025-11-25 elicitation), and the call suspends on it. The request keeps, in `data.mcpInput`,
 * the server's key for it and its `requestState` exactly as received (never parsed): the halted
 * run stores the request, so both survive a halt, an eviction and a redeploy. When the request
 * is answered the call is executed again with `ctx.answer` and `ctx.answered` (that stored
 * request), and sent again with `inputResponses` and the `requestState`: nothing else re-runs.
 */
import type { Answer, Context, Request } from "../types";
import { type ElicitationParams, requestFromElicitation, resultFromAnswer } from "./elicitation";
import type { InputRequired } from "./modern";

export const MCP_INPUT_DATA = "mcpInput";

interface StoredInput {
  /** The server's key for the input request (what `inputResponses` is keyed by). */
  key: string;
  /** The server's `requestState`, byte for byte. */
  requestState?: string;
  /** The elicitation as the server sent it (for answering it). */
  elicitation: ElicitationParams;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The request a call suspends on for `asked`, or why it cannot: this client answers one
 * elicitation at a time (several at once, or sampling and roots, are an error result naming
 * them). `asked` without input requests is not handled here (the caller retries with its state).
 */
export function requestForInput(
  asked: InputRequired,
  origin: { server: string; tool: string },
): { request: Request } | { error: string } {
  const entries = Object.entries(asked.inputRequests);
  if (entries.length !== 1) {
    return {
      error: `the server asked for ${entries.length} inputs at once (${entries.map(([key]) => key).join(", ")}); this client answers one at a time`,
    };
  }
  const [key, input] = entries[0] as [string, { method?: unknown; params?: unknown }];
  const params = isRecord(input.params) ? input.params : undefined;
  if (input.method !== "elicitation/create" || !params || typeof params.message !== "string") {
    return {
      error: `the server asked for ${JSON.stringify(input.method)} (input ${JSON.stringify(key)}), which this client does not answer`,
    };
  }
  const elicitation = { ...params, mode: params.mode ?? "form" } as ElicitationParams;
  const request = requestFromElicitation(elicitation, origin);
  const stored: StoredInput = {
    key,
    elicitation,
    ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }),
  };
  return { request: { ...request, data: { ...request.data, [MCP_INPUT_DATA]: stored } } };
}

/** What the call's retry sends, when this execution answers an input request it suspended on. */
export function retryParams(
  ctx: Context,
): { inputResponses: Record<string, unknown>; requestState?: string } | undefined {
  const stored = storedInput(ctx.answered);
  if (!stored || !ctx.answer) {
    return undefined;
  }
  const { result } = resultFromAnswer(ctx.answer as Answer, stored.elicitation);
  return {
    inputResponses: { [stored.key]: result },
    ...(stored.requestState === undefined ? {} : { requestState: stored.requestState }),
  };
}

function storedInput(request: Request | undefined): StoredInput | undefined {
  const stored = request?.data?.[MCP_INPUT_DATA];
  return isRecord(stored) && typeof stored.key === "string" && isRecord(stored.elicitation)
    ? (stored as unknown as StoredInput)
    : undefined;
}
