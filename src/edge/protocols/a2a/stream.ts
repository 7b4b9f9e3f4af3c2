/**
 * message/stream and tasks/resubscribe: Server-Sent Events, each a JSON-RPC response whose
 * result is the task (first), then `status-update` and `artifact-update` events as the run
 * moves. The stream ends (`final: true`) when the task needs someone to act or is done; the
 * run's own event log drives it, re-read as states so a replayed event never misleads.
 */
import type { ThreadRpc } from "../../protocol";
import { followEvents } from "../run-watch";
import { rpcResult, type RpcId } from "./jsonrpc";
import { answerArtifact, isInterrupted, toTask, type TaskState } from "./task";

const MOVES = new Set(["pending", "resumed", "done", "error"]);
const encoder = new TextEncoder();

export function taskStream(
  stub: ThreadRpc,
  runId: string,
  id: RpcId,
  signal: AbortSignal,
  answered?: string,
): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const send = (result: unknown) =>
    writer.write(encoder.encode(`data: ${JSON.stringify(rpcResult(id, result))}\n\n`));
  const stop = new AbortController();
  signal.addEventListener("abort", () => stop.abort());

  const run = async () => {
    const first = await stub.getRun(runId);
    if (!first) {
      return;
    }
    const task = toTask(first, answered);
    await send(task);
    let last: TaskState = task.status.state;
    if (isInterrupted(last)) {
      return;
    }
    // Each move is re-read as a state; the events carry no state of their own.
    const emit = async (): Promise<boolean> => {
      const view = await stub.getRun(runId);
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
    await followEvents(stub, runId, stop.signal, (event) => {
      if (MOVES.has(event.type)) {
        chain = chain.then((done) => done || emit());
        void chain.then((done) => done && stop.abort());
      }
      return false;
    }).catch((error: unknown) => {
      if (!stop.signal.aborted) {
        throw error;
      }
    });
    if (!(await chain)) {
      await emit();
    }
  };

  run()
    .catch(() => {})
    .finally(() => writer.close().catch(() => {}));
  return new Response(readable, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
  });
}
