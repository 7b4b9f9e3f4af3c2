/**
 * How a child handle persists as it runs, the same rules as the run's own checkpointer
 * (durable/thread/drive/checkpoint.ts): at each turn boundary its committed messages are appended
 * (never rewritten) and its halted turn's results kept in the handle row's `slots`; each
 * settled call updates its slot at once, so a crash re-runs only calls that have no result.
 * Its events go to the run's log with `handle` set. A child's own `pending` event is not
 * logged: the request surfaces once, as the run's `pending` event (carrying `handle`).
 */
import type { Message } from "../../src/core/types";
import type { RunEvent } from "../../src/core/events";
import type { RunState } from "../../src/core/loop/run-loop";
import type { ToolMessage } from "../storage/run-store";
import { forward } from "../thread/drive/checkpoint";
import type { ChildPersister } from "./child-client";
import type { TreeContext } from "./tree";

export function childCheckpointer(
  tree: TreeContext,
  handle: string,
  options: { committed: number; afterTurn: (state: RunState) => void },
): ChildPersister {
  const { deps, handles, run } = tree;
  const key = { runId: run.runId, handle };
  let committed = options.committed;
  const ledger = tree.ledger();
  const withHandle = {
    ...deps,
    record: (runId: string, type: string, data: unknown) =>
      deps.record(runId, type, { ...(data as Record<string, unknown>), handle }),
  };
  const checkCancelled = () => {
    if (tree.signal.aborted) {
      throw new Error("run cancelled");
    }
  };
  return {
    event(event: RunEvent) {
      if (event.type !== "pending") {
        forward(withHandle, run.runId, event);
      }
    },
    call(state: RunState, result: ToolMessage) {
      checkCancelled();
      deps.transaction(() => {
        const row = handles.handle(run.runId, handle);
        const slots = row?.slots ?? [];
        const next = [...slots.filter((s) => s.toolCallId !== result.toolCallId), result];
        handles.update(key, {
          slots: next,
          toolCalls: state.toolCalls,
          updatedAt: deps.now(),
        });
      });
      ledger.spent(handle, spentOf(state));
    },
    turn(state: RunState) {
      checkCancelled();
      deps.transaction(() => {
        const lastAssistant = state.messages.findLastIndex((m) => m.role === "assistant");
        const turnResults = state.messages
          .slice(lastAssistant + 1)
          .filter((m): m is ToolMessage => m.role === "tool");
        const halted = turnResults.some((m) => m.pending);
        const end = halted ? lastAssistant + 1 : state.messages.length;
        const fresh: Message[] = state.messages.slice(committed, Math.max(committed, end));
        committed += fresh.length;
        handles.checkpoint(key, fresh, {
          turns: state.turns,
          usage: state.usage,
          toolCalls: state.toolCalls,
          slots: halted ? turnResults : null,
          updatedAt: deps.now(),
        });
      });
      ledger.spent(handle, spentOf(state));
      options.afterTurn(state); // the ledger has this turn's spend: a held admission goes
    },
  };
}

const spentOf = (state: RunState) => ({
  turns: state.turns,
  usage: state.usage,
  toolCalls: state.toolCalls.length,
});
