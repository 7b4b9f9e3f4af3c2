/**
 * A new user message that arrives while the conversation's run is still going, in a body
 * that also answers that run (`useChat` sends both at once when the user approves and then
 * types before, or instead of, the approval's own request): the answers are recorded by
 * the route, the run continues its turn, and the new message waits behind it instead of a
 * `409 thread_busy`. This response is the new message's answer: it follows the running
 * run without showing it (its parts belong to the earlier assistant message, which the
 * approval's own stream or a reload updates), starts the new message's run once the
 * thread is free, and streams that run.
 *
 * If the running run halts on a request this reader must answer first, the new message
 * cannot run yet: the response is then that run's stream again (from its start, under its
 * own message id, so the client rebuilds that message in place with the new approval card);
 * the client's next request carries the answer and the still unanswered message again.
 */
import type { RunView, ThreadRpc } from "../../protocol";
import { followRun } from "../run-feed";
import { sseResponse } from "../sse-writer";
import { type ChatStreamOptions, pumpChat, readerMustAct, UI_STREAM_HEADERS } from "./stream";

export interface FollowUpOptions {
  stub: ThreadRpc;
  /** The run the answers went to, still active. */
  runningId: string;
  /** Starts the new message's run (the same checks as a fresh message). */
  startNext: () => Promise<RunView>;
  user: string | null;
  base: string;
  answered: ReadonlySet<string>;
  signal?: AbortSignal;
}

export function followUpStream(options: FollowUpOptions): Response {
  const common: Omit<ChatStreamOptions, "runId" | "after"> = {
    stub: options.stub,
    user: options.user,
    base: options.base,
    answered: options.answered,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  return sseResponse(
    async (sink) => {
      const feed = followRun({
        stub: options.stub,
        runId: options.runningId,
        after: 0,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      for await (const item of feed) {
        if (
          item.type === "halted" &&
          (await readerMustAct({ stub: options.stub, runId: options.runningId }, item.open, {
            ...common,
            runId: options.runningId,
            after: 0,
          }))
        ) {
          await pumpChat({ ...common, runId: options.runningId, after: 0 }, sink);
          return;
        }
        if (item.type === "finished") {
          break;
        }
      }
      const next = await options.startNext();
      await pumpChat({ ...common, answered: new Set(), runId: next.runId, after: 0 }, sink);
    },
    {
      headers: UI_STREAM_HEADERS,
      onFailure: async (error, sink) => {
        await sink.send(
          JSON.stringify({ type: "error", errorText: `stream failed: ${String(error)}` }),
        );
      },
      trailer: "[DONE]",
    },
  );
}
