/**
 * Run ids carry their thread: `<threadId>.<random>`. The worker finds a run's
 * Durable Object from the id alone, with no index to keep consistent.
 */
import type { ThreadRpc } from "../protocol";
import { readConfig, type EdgeEnv } from "../settings";
import { THREAD_ID } from "./schemas";

export function newThreadId(): string {
  return `th_${crypto.randomUUID().replace(/-/g, "")}`;
}

export function newRunId(threadId: string): string {
  return `${threadId}.run_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`;
}

/** The thread of a run id, or undefined when the id is not one of ours. */
export function threadOf(runId: string): string | undefined {
  const dot = runId.indexOf(".");
  if (dot <= 0) {
    return undefined;
  }
  const threadId = runId.slice(0, dot);
  return THREAD_ID.test(threadId) && /^run_[a-f0-9]{20}$/.test(runId.slice(dot + 1))
    ? threadId
    : undefined;
}

/** The thread's object, typed by its RPC surface (the class implements `ThreadRpc`). */
export function threadStub(env: EdgeEnv, threadId: string): ThreadRpc {
  const namespace = readConfig(env).bindings.threads;
  return namespace.get(namespace.idFromName(threadId)) as unknown as ThreadRpc;
}
