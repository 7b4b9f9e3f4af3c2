/**
 * `compactor(options)` (SPEC §7F): a `beforeLLM` hook that, once the transcript's estimate is
 * over `maxTokens`, replaces the older body with one summary system message and keeps a
 * recent tail: `[leading system prompt (verbatim), summary, (flush reminder), …tail]`.
 * At or below `maxTokens` it returns nothing, so the request is byte-identical to one
 * without a compactor.
 *
 * In this kernel `beforeLLM` rewrites only what is sent to the model: the run's transcript
 * (its `RunResult.messages` and the conversation store) stays whole. A compacted turn that
 * suspends therefore needs no undoing, and the resumed turn compacts again from the whole
 * transcript.
 */
import type { Message } from "../types";
import type { Hooks } from "../hooks";
import { estimateTokens } from "./count";
import { tailBoundaries, type CompactableMessage } from "./boundaries";

export interface CompactorOptions<M extends CompactableMessage = Message> {
  /** Compact only when the estimate exceeds this. */
  maxTokens: number;
  /** Keep at least this many tokens of recent tail where a safe cut allows (default maxTokens / 2). */
  keepTail?: number;
  /** Produces the summary of the older messages; may call a model (none is called by default). */
  summarize(older: M[]): string | Promise<string>;
  /** Token estimate of a list of messages (default: ceil(JSON length / 4) per message, summed). */
  countTokens?(messages: M[]): number;
  /** Adds a system reminder, before the tail, to save durable facts with the memory tool. */
  flushToMemory?: boolean;
}

export const SUMMARY_PREFIX = "[Summary of earlier conversation]\n";
export const FLUSH_REMINDER =
  "Earlier turns were just summarized. Before relying on the summary, save any durable facts you still need with the memory tool.";

/**
 * The compacted transcript, or `undefined` when nothing changes (at or below the limit, or
 * nothing older than the tail to summarize). Pure apart from `summarize`.
 */
export async function compactMessages<M extends CompactableMessage>(
  messages: M[],
  options: CompactorOptions<M>,
): Promise<M[] | undefined> {
  const count = options.countTokens ?? ((list: M[]) => estimateTokens(list));
  if (count(messages) <= options.maxTokens) {
    return undefined;
  }
  const lead = messages[0]?.role === "system" ? 1 : 0;
  const body = messages.slice(lead);
  const keepTail = options.keepTail ?? options.maxTokens / 2;
  const boundaries = tailBoundaries(body);
  let split = body.length;
  if (boundaries.length) {
    // The largest tail that fits keepTail; if none fits, the most recent boundary (safety over size).
    split =
      boundaries.find((index) => count(body.slice(index)) <= keepTail) ??
      (boundaries.at(-1) as number);
  }
  const older = body.slice(0, split);
  if (older.length === 0) {
    return undefined;
  }
  const summary = await options.summarize(older);
  const inserted = [
    { role: "system", content: `${SUMMARY_PREFIX}${summary}` },
    ...(options.flushToMemory ? [{ role: "system", content: FLUSH_REMINDER }] : []),
  ] as M[];
  return [...messages.slice(0, lead), ...inserted, ...body.slice(split)];
}

/**
 * @example
 * const hooks = { beforeLLM: compactor({ maxTokens: 8000, summarize: (older) => summarizeWithModel(older) }) };
 * createClient({ …, hooks }) // or agent("helper", { …, hooks }) for one agent of a runtime
 */
export function compactor(options: CompactorOptions): NonNullable<Hooks["beforeLLM"]> {
  if (!Number.isFinite(options?.maxTokens) || options.maxTokens < 0) {
    throw new TypeError("compactor: maxTokens must be a non-negative number");
  }
  if (typeof options.summarize !== "function") {
    throw new TypeError("compactor: summarize must be a function (older messages → summary text)");
  }
  return async ({ messages }) => {
    const compacted = await compactMessages(messages, options);
    return compacted ? { messages: compacted } : undefined;
  };
}
