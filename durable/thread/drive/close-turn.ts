/**
 * Closing a run's open turn when it stops for good (cancel): every tool call of the
 * last turn gets exactly one committed result, so the thread's next run sends a
 * balanced transcript. Suspended calls are refused with reason "cancelled"; calls
 * that never ran say so; results already computed are kept.
 */
import type { Message } from "../../../src/core/types";
import { declinedResult } from "../../../src/core/suspension";
import type { RunStore, ToolMessage } from "../../storage/run-store";

export function closeOpenTurn(store: RunStore, runId: string): void {
  const committed = store.committedMessages();
  const last = committed.findLastIndex((m) => m.role === "assistant");
  const assistant = committed[last];
  const slots = new Map(store.slots(runId).map((s) => [s.toolCallId, s]));
  if (assistant?.role === "assistant" && assistant.toolCalls?.length) {
    const answered = new Set(
      committed.slice(last + 1).flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])),
    );
    const closing: Message[] = [];
    for (const call of assistant.toolCalls) {
      if (answered.has(call.id)) {
        continue;
      }
      const slot = slots.get(call.id);
      closing.push(
        slot
          ? settle(slot)
          : {
              role: "tool",
              toolCallId: call.id,
              name: call.name,
              content: `cancelled: ${call.name} did not run`,
              isError: true,
              reason: "cancelled",
            },
      );
    }
    store.appendMessages(runId, closing);
  }
  store.clearSlots(runId);
}

function settle(slot: ToolMessage): ToolMessage {
  if (!slot.pending) {
    return slot;
  }
  const refused = declinedResult(slot.pending, "cancelled");
  return {
    role: "tool",
    toolCallId: slot.toolCallId,
    name: slot.name,
    content: refused.output,
    isError: true,
    reason: "cancelled",
  };
}
