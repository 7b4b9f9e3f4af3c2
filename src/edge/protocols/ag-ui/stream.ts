/**
 * `POST /v1/ag-ui/:agent` answers with this: the thread's run, from a cursor, as AG-UI
 * events over SSE (`data: <json>`, what `@ag-ui/encoder`'s `encodeSSE` writes: the translator
 * never sets an optional field to null, so its `omitOptionalNulls` pass, and the 10 KiB of
 * shape tables it brings into the worker, would change nothing). The AG-UI run ends with
 * the run (`RUN_FINISHED` / `RUN_ERROR`) or where the run halts on requests the caller may
 * answer (`RUN_FINISHED` with an interrupt outcome). A request only an approver group may
 * decide is announced (`CUSTOM toolnexus.waiting`) and the stream waits for the group.
 */
import { EventType } from "@ag-ui/core";
import type { Request } from "../../../core/types";
import type { LoggedEvent, ThreadRpc } from "../../protocol";
import { decidableBy } from "../answers";
import { followRun, logFeed } from "../run-feed";
import { sseResponse, sseWhole, type FrameSink } from "../sse-writer";
import { AgUiTranslator, type AgUiEvent, type RunIds } from "./events";

export interface AgUiStreamOptions {
  stub: ThreadRpc;
  /** The ids the client gave (echoed on RUN_STARTED / RUN_FINISHED). */
  ids: RunIds;
  runId: string;
  after: number;
  before?: LoggedEvent[];
  state?: unknown;
  user: string | null;
  base: string;
  /** A finished run's log after `after`: the stream is then written in one piece. */
  log?: LoggedEvent[];
  signal?: AbortSignal;
}

export function agUiStream(options: AgUiStreamOptions): Response | Promise<Response> {
  return (options.log ? sseWhole : sseResponse)((sink) => pumpAgUi(options, sink), {
    onFailure: async (error, sink) => {
      await send(sink, [{ type: EventType.RUN_ERROR, message: `stream failed: ${String(error)}` }]);
    },
  });
}

async function send(sink: FrameSink, events: AgUiEvent[]): Promise<boolean> {
  for (const event of events) {
    const frame = JSON.stringify(event);
    if (!(await sink.send(frame))) {
      return false;
    }
  }
  return true;
}

async function pumpAgUi(options: AgUiStreamOptions, sink: FrameSink): Promise<void> {
  const { stub, runId, user, base } = options;
  const translator = new AgUiTranslator(options.ids);
  translator.prime(options.before ?? []);
  if (!(await send(sink, translator.started(options.state)))) {
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
    let events: AgUiEvent[];
    if (item.type === "event" && item.event.type === "pending") {
      const request = item.event.data.request as Request;
      const who = await decidableBy({ stub, runId }, request, { user, base });
      events = translator.pending(item.event, who.decidable ? undefined : who.waiting);
    } else if (item.type === "event") {
      events = translator.event(item.event);
    } else if (item.type === "halted") {
      const interrupts = await answerable(options, item.open, translator);
      if (interrupts.length > 0) {
        await send(sink, translator.interrupted(interrupts));
        return;
      }
      events = [];
    } else {
      return;
    }
    if (!(await send(sink, events))) {
      return;
    }
  }
}

/** The open, undecided requests the stream's caller may answer, as interrupts. */
async function answerable(
  { stub, runId, user, base }: AgUiStreamOptions,
  open: Request[],
  translator: AgUiTranslator,
) {
  const interrupts = [];
  for (const request of open) {
    const described = await stub.describeRequest(runId, request.id);
    if (described.state !== "open") {
      continue;
    }
    const who = await decidableBy({ stub, runId }, request, { user, base });
    if (who.decidable) {
      interrupts.push(translator.interruptOf(request, described.expiresAt, who.argsHash));
    }
  }
  return interrupts;
}
