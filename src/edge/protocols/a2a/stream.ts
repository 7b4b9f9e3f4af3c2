/**
 * message/stream and tasks/resubscribe: Server-Sent Events, each a JSON-RPC response whose
 * result is the task (first), then `status-update` and `artifact-update` events as the run
 * moves. The stream ends (`final: true`) when the task needs someone to act or is done; the
 * run's own event log drives it, re-read as states so a replayed event never misleads.
 * A stream that fails once started (the object went away, storage failed) ends with one
 * JSON-RPC error event (`-32603`, the reason) instead of just closing, so the caller knows
 * to re-read the task (`tasks/get`) or resubscribe. With `v1`, events are A2A 1.0's shapes.
 */
import { runForCaller } from "../caller";
import type { ThreadRpc } from "../../protocol";
import { followEvents } from "../run-watch";
import { errorMessage } from "../../../core/errors";
import { RPC, RpcError, rpcFailure, rpcResult, type RpcId } from "./jsonrpc";
import { answerArtifact, isInterrupted, toTask, type TaskState } from "./task";
import { v1Event } from "./v1";
import { unpack } from "../../packed";

const MOVES = new Set(["pending", "resumed", "done", "error"]);
const encoder = new TextEncoder();

/** The task's run: its thread's stub and id. The reply: its JSON-RPC id, and when to stop. */
export function taskStream(
  { stub, runId }: { stub: ThreadRpc; runId: string },
  { id, signal }: { id: RpcId; signal: AbortSignal },
  options: { answered?: string; v1?: boolean; viewer?: string | undefined } = {},
): Response {
  const { answered } = options;
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const write = (body: unknown) =>
    writer.write(encoder.encode(`data: ${JSON.stringify(body)}\n\n`));
  const send = (result: unknown) => write(rpcResult(id, options.v1 ? v1Event(result) : result));
  const stop = new AbortController();
  signal.addEventListener("abort", () => stop.abort());

  const run = async () => {
    const read = async () => {
      const view = await unpack(await stub.getRun(runId));
      return view && runForCaller(view, options.viewer);
    };
    const first = await read();
    if (!first) {
      return;
    }
    const task = toTask(first, answered);
    await send(task);
    let last: TaskState = task.status.state;
    if (isInterrupted(last)) {
      // Already waiting or finished (the thread drives a run as it starts): the stream still
      // ends the way a caller waits for, with a final status.
      const { contextId, status } = task;
      await send({ kind: "status-update", taskId: runId, contextId, status, final: true });
      return;
    }
    // Each move is re-read as a state; the events carry no state of their own.
    const emit = async (): Promise<boolean> => {
      const view = await read();
      if (!view) {
        return true;
      }
      const now = toTask(view, answered);
      if (now.status.state === last) {
        return false;
      }
      last = now.status.state;
      if (last === "completed") {
        await send({
          kind: "artifact-update",
          taskId: runId,
          contextId: now.contextId,
          artifact: answerArtifact(view),
          lastChunk: true,
        });
      }
      const final = isInterrupted(last);
      await send({
        kind: "status-update",
        taskId: runId,
        contextId: now.contextId,
        status: now.status,
        final,
      });
      return final;
    };
    let chain = Promise.resolve(false);
    await followEvents(
      { stub, runId },
      (event) => {
        if (MOVES.has(event.type)) {
          chain = chain.then((done) => done || emit());
          void chain.then((done) => done && stop.abort());
        }
        return false;
      },
      { signal: stop.signal },
    ).catch((error: unknown) => {
      if (!stop.signal.aborted) {
        throw error;
      }
    });
    if (!(await chain)) {
      await emit();
    }
  };

  run()
    .catch((error: unknown) => {
      if (!signal.aborted) {
        const reason = `the task stream failed: ${errorMessage(error)}; read the task with tasks/get or resubscribe`;
        return write(rpcFailure(id, new RpcError(RPC.internalError, reason))).catch(() => {});
      }
    })
    .finally(() => writer.close().catch(() => {}));
  return new Response(readable, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
  });
}
