/**
 * Following a run from a protocol route: its event log (the object's SSE stream, replayed
 * from the start) read as "something happened", each time re-reading the run's view, so a
 * caller sees states, never raw events, and nothing is missed between a read and a subscribe.
 */
import { isRemoteTaskRequest } from "../../core/a2a/remote-task";
import { readSseEvents } from "../../core/streaming/sse";
import type { RunView, ThreadRpc } from "../protocol";
import { unpack } from "../packed";

/** A run to watch: its thread's stub and its id. */
export interface WatchedRun {
  stub: ThreadRpc;
  runId: string;
}

export interface RunEvent {
  /** The event's id in the run's log (for resuming after it). */
  id: number;
  type: string;
  data: unknown;
}

/**
 * A run that no longer works on its own: finished, or waiting on a request — other than
 * `answered`, a request just answered whose resume has not started yet, and a wait on a
 * remote A2A task (`remote_task`), which the thread's alarm answers.
 */
export const isSettled = (view: RunView, answered?: string): boolean =>
  view.status !== "running" &&
  !(answered !== undefined && view.status === "pending" && view.pending?.id === answered) &&
  // A wait on a remote A2A task is answered by the object's alarm, not by anyone watching.
  !(view.status === "pending" && isRemoteTaskRequest(view.pending));

/**
 * Reads the run's events until `onEvent` returns true, the stream ends (the run finished) or
 * `signal` aborts. Events already in the log are replayed first.
 */
export async function followEvents(
  { stub, runId }: WatchedRun,
  onEvent: (event: RunEvent) => boolean,
  { signal, after = 0 }: { signal: AbortSignal | undefined; after?: number },
): Promise<void> {
  const url = new URL("https://thread/events");
  url.searchParams.set("runId", runId);
  if (after > 0) {
    url.searchParams.set("after", String(after));
  }
  const response = await stub.fetch(url.toString(), signal ? { signal } : {});
  if (!response.ok) {
    await response.body?.cancel();
    return;
  }
  await readSseEvents(response.body, signal, (message) => {
    let data: unknown = null;
    try {
      data = JSON.parse(message.data);
    } catch {
      data = message.data;
    }
    return onEvent({ id: Number(message.id ?? 0), type: message.event ?? "message", data });
  });
}

/**
 * The run's view once it settles (pending, done, failed…), or its view when `boundMs` runs
 * out first. Waits on the event log, so it costs one open stream, not a poll loop.
 */
export async function settledView(
  { stub, runId }: WatchedRun,
  {
    boundMs,
    signal,
    answered,
  }: { boundMs: number; signal?: AbortSignal | undefined; answered?: string | undefined },
): Promise<RunView | undefined> {
  const first = await unpack(await stub.getRun(runId));
  if (!first || isSettled(first, answered)) {
    return first;
  }
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), boundMs);
  const forward = () => stop.abort();
  signal?.addEventListener("abort", forward);
  let after = 0;
  try {
    // A pending event already in the log may belong to a request decided since: re-read the
    // view after each one and carry on after it while the run still works.
    while (!stop.signal.aborted) {
      let sawEvent = false;
      await followEvents(
        { stub, runId },
        (event) => {
          after = event.id;
          sawEvent = ["pending", "done", "error"].includes(event.type);
          return sawEvent;
        },
        { signal: stop.signal, after },
      );
      const view = await unpack(await stub.getRun(runId));
      if (!view || isSettled(view, answered) || !sawEvent) {
        return view;
      }
    }
  } catch (error) {
    if (!stop.signal.aborted) {
      throw error;
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", forward);
  }
  return unpack(await stub.getRun(runId));
}
