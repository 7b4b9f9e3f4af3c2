/**
 * `POST /v1/chat/:agent` and `GET …/:id/stream` answer with this: a run's event log,
 * from a cursor, as an AI SDK UI message stream (SSE, `x-vercel-ai-ui-message-stream: v1`).
 * The stream ends where the reader has something to do (the run halted on a request they
 * may decide: `tool-approval-request` then `finish`) or when the run ends. A request the
 * reader may not decide (approver rules) is announced as `data-toolnexus-waiting` and the
 * stream stays open: the group's decision, whenever it comes, continues it.
 */
import type { LoggedEvent, ThreadRpc } from "../../protocol";
import { decidableBy } from "../answers";
import { followRun, logFeed } from "../run-feed";
import { sseResponse, sseWhole, type FrameSink } from "../sse-writer";
import { assistantMessageId, ChunkTranslator, type UiChunk } from "./chunks";

export const UI_STREAM_HEADERS = { "x-vercel-ai-ui-message-stream": "v1" };

export interface ChatStreamOptions {
  stub: ThreadRpc;
  runId: string;
  /** Replay after this event id (0: the run from its start). */
  after: number;
  /** The run's events up to `after`, so a continuation knows which call each request belongs to. */
  before?: LoggedEvent[];
  user: string | null;
  base: string;
  /** Requests this caller just answered: if they still wait (a quorum), the stream waits too. */
  answered?: ReadonlySet<string>;
  /** The client's last message is this run's assistant message: no `start` is sent. */
  continuing?: boolean;
  /** Chunks sent right after `start` (where a request just voted on waits). */
  initial?: UiChunk[];
  /** A finished run's log after `after`: the stream is then written in one piece. */
  log?: LoggedEvent[];
  signal?: AbortSignal;
}

export function chatStream(options: ChatStreamOptions): Response | Promise<Response> {
  return (options.log ? sseWhole : sseResponse)((sink) => pumpChat(options, sink), {
    headers: UI_STREAM_HEADERS,
    onFailure: async (error, sink) => {
      await send(sink, [{ type: "error", errorText: `stream failed: ${String(error)}` }]);
    },
    trailer: "[DONE]",
  });
}

async function send(sink: FrameSink, chunks: UiChunk[]): Promise<boolean> {
  for (const chunk of chunks) {
    if (!(await sink.send(JSON.stringify(chunk)))) {
      return false;
    }
  }
  return true;
}

export async function pumpChat(options: ChatStreamOptions, sink: FrameSink): Promise<void> {
  const { stub, runId, user, base } = options;
  const translator = new ChunkTranslator();
  translator.prime(options.before ?? []);
  // A continuation extends the message the client holds: a `start` naming no message and
  // carrying no metadata would do nothing in the client (`ai` 7 writes nothing for it), so
  // it is not sent.
  const opening: UiChunk[] = [
    ...(options.continuing
      ? []
      : [{ type: "start", messageId: assistantMessageId(runId) } as const]),
    ...(options.initial ?? []),
  ];
  if (!(await send(sink, opening))) {
    return;
  }
  const feed = options.log
    ? logFeed(options.log)
    : followRun({
        stub,
        runId,
        after: options.after,
        ...(options.signal ? { signal: options.signal } : {}),
      });
  for await (const item of feed) {
    let chunks: UiChunk[];
    if (item.type === "event" && item.event.type === "pending") {
      const request = item.event.data.request as Parameters<typeof decidableBy>[1];
      // A request this caller just voted on (a quorum still open) waits for the others.
      const reader = options.answered?.has(request.id) ? null : user;
      const who = await decidableBy({ stub, runId }, request, { user: reader, base });
      chunks = who.decidable
        ? translator.pending(item.event, undefined, who.argsHash).chunks
        : translator.pending(item.event, who.waiting).chunks;
    } else if (item.type === "event") {
      chunks = translator.event(item.event);
    } else if (item.type === "halted") {
      if (await readerMustAct({ stub, runId }, item.open, options)) {
        await send(sink, translator.halted());
        return;
      }
      chunks = [];
    } else {
      return; // finished: its done/error chunk went out with its event
    }
    if (!(await send(sink, chunks))) {
      return;
    }
  }
}

/** Does an open, undecided request wait on this reader? Then the response ends for them to answer. */
export async function readerMustAct(
  { stub, runId }: { stub: ThreadRpc; runId: string },
  open: Parameters<typeof decidableBy>[1][],
  options: ChatStreamOptions,
): Promise<boolean> {
  for (const request of open) {
    if (options.answered?.has(request.id)) {
      continue;
    }
    const described = await stub.describeRequest(runId, request.id);
    if (described.state !== "open") {
      continue; // decided, its resume on the way
    }
    if ((await decidableBy({ stub, runId }, request, options)).decidable) {
      return true;
    }
  }
  return false;
}
