/**
 * A scripted model for agent-runtime tests: one script per model name (agents pick models by
 * name, as the SPEC fixtures do), every call billed 30 + 10 tokens, and a count of the calls
 * in flight so tests can see concurrency (and the turn gate) without timing anything.
 */
import type { GeneratedMessage, Message, ModelRequest } from "../../../src/core";

export type Script = (request: ModelRequest) => GeneratedMessage | Promise<GeneratedMessage>;

export function scripted(scripts: Record<string, Script>) {
  let active = 0;
  let peak = 0;
  const calls: string[] = [];
  const overlapWaiters: Array<{ n: number; resolve: () => void }> = [];
  const generate = async (request: ModelRequest): Promise<GeneratedMessage> => {
    active += 1;
    peak = Math.max(peak, active);
    calls.push(request.model);
    for (const w of overlapWaiters.filter((w) => active >= w.n)) {
      w.resolve();
    }
    try {
      const script = scripts[request.model];
      if (!script) {
        throw new Error(`no script for model ${request.model}`);
      }
      const message = await script(request);
      return { usage: { promptTokens: 30, completionTokens: 10, totalTokens: 40 }, ...message };
    } finally {
      active -= 1;
    }
  };
  return {
    generate,
    /** Resolves once `n` model calls are in flight at the same time. */
    overlap(n: number): Promise<void> {
      if (active >= n) {
        return Promise.resolve();
      }
      return new Promise((resolve) => overlapWaiters.push({ n, resolve }));
    },
    get peak() {
      return peak;
    },
    calls,
  };
}

export const toolMessages = (request: ModelRequest) =>
  request.messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");

export function lastUser(request: ModelRequest): string {
  const user = request.messages.findLast((m) => m.role === "user");
  return user?.role === "user" ? user.content : "";
}

export const call = (name: string, args: Record<string, unknown>) => ({
  toolCalls: [{ name, arguments: args }],
});

/** A promise with its resolve handle. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
