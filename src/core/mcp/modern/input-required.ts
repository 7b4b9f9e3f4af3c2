/**
 * An MCP 2026-07-28 `input_required` result ⇄ the suspension contract (docs/architecture.md
 * §3): each of the server's input requests becomes one of our requests (an
 * `elicitation/create` form ⇒ `kind: "input"` with `data.schema`; URL mode ⇒
 * `kind: "authorization"` with `url`, as for a 2025-11-25 elicitation).
 *
 * Durably (no `waitFor`) the call suspends on all of a round's inputs at once: the first is
 * the call's `pending`, the others ride beside it (ALSO_PENDING, ../../suspension), each with
 * its own request id, kept in `data.mcpInput.ids` so the ids stay the same while the round
 * lasts. They are answered in any order: each answer is kept, and the call suspends again on
 * the ones left (`CONTINUES`, same ids), nothing sent to the server; once every one is
 * answered the call is sent again, once, with all `inputResponses` and the `requestState`.
 * Everything the retry needs is in each open request's `data.mcpInput` (the server's input
 * requests, the answers so far, its `requestState` exactly as received, never parsed): the
 * halted run stores the requests, so it survives a halt, an eviction and a redeploy. Where the
 * host answers inline (`waitFor`), the loop asks them one after another.
 *
 * A refusal (declined, expired) is sent too (`RUN_ON_REFUSAL`): that input as `decline`
 * (`cancel` when it expired or was withdrawn), any input not asked yet as `cancel`.
 */
import type { Answer, Context, Request, ToolResult } from "../../types";
import { pending } from "../../answers";
import { ALSO_PENDING, CONTINUES, RUN_ON_REFUSAL } from "../../suspension";
import { newRequestId } from "../../answers";
import {
  type ElicitationParams,
  elicitationNote,
  requestFromElicitation,
  resultFromAnswer,
} from "../elicitation";
import type { InputRequired } from "./revision";

export const MCP_INPUT_DATA = "mcpInput";
/** How many `input_required` rounds with questions one call may go through (a server that keeps asking). */
export const MAX_INPUT_ROUNDS = 8;

type InputResponse = Record<string, unknown>;
type AskedInput = { method?: unknown; params?: unknown };

interface StoredInput {
  /** The server's key for the input this request asks (what `inputResponses` is keyed by). */
  key: string;
  /** The server's `requestState`, byte for byte. */
  requestState?: string;
  /** The elicitation as the server sent it (for answering it). */
  elicitation: ElicitationParams;
  /** Every input request of the round, as the server sent them. */
  asked: Record<string, AskedInput>;
  /** The responses given so far in this round, by key. */
  responses: Record<string, InputResponse>;
  /** Which round of questions this is (1 for the server's first `input_required`). */
  round: number;
  /** With several inputs: each input's request id, by key (the same while the round lasts). */
  ids?: Record<string, string>;
  /** Set when a task asks (../tasks): the answers go back with `tasks/update`. */
  task?: TaskRef;
}

/** The task a round of questions belongs to, and its wait's bounds (./tasks). */
export interface TaskRef {
  taskId: string;
  started: number;
  limit: number;
}

export interface Origin {
  server: string;
  tool: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Why a server's input request cannot be asked, or its elicitation. */
function elicitationOf(key: string, input: AskedInput): ElicitationParams | string {
  const params = isRecord(input.params) ? input.params : undefined;
  if (input.method !== "elicitation/create" || !params || typeof params.message !== "string") {
    return `the server asked for ${JSON.stringify(input.method)} (input ${JSON.stringify(key)}), which this client does not answer`;
  }
  return { ...params, mode: params.mode ?? "form" } as ElicitationParams;
}

/** The request for one input of the round, carrying the round's state. */
function requestFor(origin: Origin, stored: Omit<StoredInput, "elicitation">): Request | string {
  const elicitation = elicitationOf(stored.key, stored.asked[stored.key] ?? {});
  if (typeof elicitation === "string") {
    return elicitation;
  }
  const id = stored.ids?.[stored.key];
  const request = requestFromElicitation(
    elicitation,
    id === undefined ? origin : { ...origin, id },
  );
  const data: StoredInput = { ...stored, elicitation };
  return { ...request, data: { ...request.data, [RUN_ON_REFUSAL]: true, [MCP_INPUT_DATA]: data } };
}

/** The stored round a re-execution answers, or undefined. */
export function storedInput(request: Request | undefined): StoredInput | undefined {
  const stored = request?.data?.[MCP_INPUT_DATA];
  return isRecord(stored) &&
    typeof stored.key === "string" &&
    isRecord(stored.elicitation) &&
    isRecord(stored.asked)
    ? ({ responses: {}, round: 1, ...stored } as unknown as StoredInput)
    : undefined;
}

/**
 * The call suspends on the first input of a new round (`round` counts them), or fails saying
 * why it cannot: an input this client does not answer (sampling, roots), or too many rounds.
 * `continues`: this execution took an answer (the suspension is the call's next step).
 */
export function suspendOnInput(
  asked: InputRequired,
  {
    origin,
    round,
    continues,
    task,
  }: { origin: Origin; round: number; continues: boolean; task?: TaskRef },
): ToolResult {
  const keys = Object.keys(asked.inputRequests);
  if (round > MAX_INPUT_ROUNDS) {
    return {
      output: `${origin.tool}: the server kept asking for input (${MAX_INPUT_ROUNDS} rounds in one call, the limit); the call was given up`,
      isError: true,
    };
  }
  for (const key of keys) {
    const problem = elicitationOf(key, asked.inputRequests[key] ?? {});
    if (typeof problem === "string") {
      return { output: `${origin.tool}: ${problem}`, isError: true };
    }
  }
  // One id per input, fixed now: an input answered first leaves the others' ids unchanged.
  const ids =
    keys.length > 1 ? Object.fromEntries(keys.map((key) => [key, newRequestId("elicit")])) : {};
  return suspendOnRound(origin, {
    keys,
    stored: {
      asked: asked.inputRequests,
      responses: {},
      round,
      ...(keys.length > 1 ? { ids } : {}),
      ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }),
      ...(task ? { task } : {}),
    },
    continues,
  });
}

/** The call suspends on every input of `keys` at once: the first `pending`, the others beside it. */
function suspendOnRound(
  origin: Origin,
  {
    keys,
    stored,
    continues,
  }: { keys: string[]; stored: Omit<StoredInput, "elicitation" | "key">; continues: boolean },
): ToolResult {
  const requests: Request[] = [];
  for (const key of keys) {
    const request = requestFor(origin, { ...stored, key });
    if (typeof request === "string") {
      return { output: `${origin.tool}: ${request}`, isError: true };
    }
    requests.push(request);
  }
  const [first, ...also] = requests as [Request, ...Request[]];
  const result = pending(first);
  const metadata = {
    ...result.metadata,
    ...(also.length > 0 ? { [ALSO_PENDING]: also } : {}),
    ...(continues ? { [CONTINUES]: true } : {}),
  };
  return { ...result, metadata };
}

/** What the call sends with its retry: all `inputResponses`, the round's state and number. */
export interface Retry {
  inputResponses: Record<string, InputResponse>;
  requestState?: string;
  round: number;
  /** Notes for the model (an answer that did not fit the form was sent as `cancel`). */
  notes: string[];
  /** The responses answer a task's questions: sent with `tasks/update`. */
  task?: TaskRef;
}

/**
 * Where a re-execution stands: the next input of the round to ask (a suspension, no server
 * call), or the retry to send once every input is answered. Undefined when this execution
 * answers nothing of ours.
 */
export function nextStep(
  ctx: Context,
  origin: Origin,
): { ask: ToolResult } | { send: Retry } | undefined {
  const stored = storedInput(ctx.answered);
  if (!stored || !ctx.answer) {
    return undefined;
  }
  const notes: string[] = [];
  const outcome = resultFromAnswer(ctx.answer as Answer, stored.elicitation);
  if (outcome.problems && ctx.answered) {
    notes.push(elicitationNote(ctx.answered, outcome.problems));
  }
  const responses = { ...stored.responses, [stored.key]: outcome.result as InputResponse };
  const open = Object.keys(stored.asked).filter((key) => !(key in responses));
  if (ctx.answer.ok && open.length > 0) {
    const { key: _answered, elicitation: _form, ...round } = stored;
    return {
      ask: suspendOnRound(origin, { keys: open, stored: { ...round, responses }, continues: true }),
    };
  }
  // A refusal ends the round: every input still open is cancelled, sent at once.
  for (const key of open) {
    responses[key] = { action: "cancel" };
  }
  return {
    send: {
      inputResponses: responses,
      round: stored.round,
      notes,
      ...(stored.requestState === undefined ? {} : { requestState: stored.requestState }),
      ...(stored.task ? { task: stored.task } : {}),
    },
  };
}
