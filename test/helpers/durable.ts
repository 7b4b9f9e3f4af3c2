/** Helpers for looking inside a thread's Durable Object (storage, event log) from tests. */
import { env, runInDurableObject } from "cloudflare:test";
import type { ThreadObject } from "../../src/worker";
import type { Message } from "../../src/core/types";
import type { EventRow } from "../../durable/storage/run-store";
import type { ThreadObjectInternals } from "../../durable/thread/object";
import { getRun, startRun, waitForStatus } from "./edge";

export type ThreadStub = DurableObjectStub<ThreadObject>;

export function threadStub(threadId: string): ThreadStub {
  return env.THREADS.get(env.THREADS.idFromName(threadId));
}

/** Runs `fn` inside the thread's object, typed with its internals (storage and the instance's store). */
export function inThread<R>(
  threadId: string,
  fn: (instance: ThreadObjectInternals, state: DurableObjectState) => R | Promise<R>,
): Promise<R> {
  return runInDurableObject<ThreadObject, R>(threadStub(threadId), (instance, state) =>
    fn(instance as unknown as ThreadObjectInternals, state),
  );
}

/** The thread id a run id carries (`<threadId>.run_…`). */
export function threadOfRun(runId: string): string {
  return runId.slice(0, runId.indexOf("."));
}

/** A parsed event-log row. */
export interface LoggedEvent {
  id: number;
  type: string;
  data: any;
}

/** The run's whole event log, read from storage. */
export async function eventsOf(runId: string): Promise<LoggedEvent[]> {
  const rows = await inThread(threadOfRun(runId), (instance) =>
    instance.store.eventsAfter(runId, 0),
  );
  return rows.map((row: EventRow) => ({ id: row.id, type: row.type, data: JSON.parse(row.data) }));
}

/** One row of the `messages` table. */
export interface MessageRow {
  seq: number;
  run_id: string;
  body: string;
}

export async function messageRows(threadId: string): Promise<MessageRow[]> {
  return inThread(threadId, (_instance, state) =>
    state.storage.sql
      .exec<{ seq: number; run_id: string; body: string }>(
        "SELECT seq, run_id, body FROM messages ORDER BY seq",
      )
      .toArray(),
  );
}

/** Runs one SQL statement in the thread's storage and returns its rows. */
export async function sqlIn(
  threadId: string,
  query: string,
  ...params: SqlStorageValue[]
): Promise<Record<string, SqlStorageValue>[]> {
  return inThread(threadId, (_instance, state) =>
    state.storage.sql.exec(query, ...params).toArray(),
  );
}

/** Starts a run through the HTTP API and waits until it is pending. */
export async function startPending(input: string, extra: Record<string, unknown> = {}) {
  const started = await startRun({ agent: "support", input, ...extra });
  const run = await waitForStatus(started.runId, ["pending"]);
  if (!run.pending) {
    throw new Error(`run ${started.runId} is pending without a request`);
  }
  return { ...started, run, request: run.pending, stub: threadStub(started.threadId) };
}

/** Polls `check` until it returns a truthy value (or throws on timeout). */
export async function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The transcript of a run as GET /v1/runs/:id?transcript=true reports it. */
export async function transcriptOf(runId: string): Promise<Message[]> {
  const run = await getRun(runId, "?transcript=true");
  return (run.transcript ?? []) as Message[];
}

export function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  }
  return counts;
}
