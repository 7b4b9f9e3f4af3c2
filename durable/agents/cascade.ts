/**
 * A decision on a request a sub-agent raised, routed to the deepest handle (the request's
 * `data.path`) and carried up the tree, append-only (issue 24 item 2, the edge's reading of
 * §7D pin 1): the handle resumes at its checkpoint with the answer; each level above gets
 * the outcome in its halted turn's open `task` slot (the child's result, or the child's
 * next request) and carries on from its checkpoint, so its completed calls (finished
 * siblings) keep their stored results and never run again. At the top the run's own slot is
 * filled; the driver then carries the run on (`continueRun`) as for any filled turn.
 *
 * Idempotent: after a crash half-way, the levels already settled are read, not re-run.
 */
import type { Answer, Message, Request, ToolCallRecord } from "../../src/core/types";
import {
  DEFAULT_MAX_TOOL_OUTPUT_BYTES,
  boundToolOutput,
  type Truncation,
} from "../../src/core/loop/tool-output";
import type { ToolMessage } from "../storage/run-store";
import { pendingOfHandle, type HandleRow } from "../storage/handle-store";
import { slotMessageOf, stepHandle } from "./child-step";
import { pathOf, rootHandleOf, type TreeContext } from "./tree";

/** True when the request was a sub-agent's (the run's slot now holds what its tree produced). */
export async function routeAnswer(
  tree: TreeContext,
  request: Request,
  answer: Answer,
): Promise<boolean> {
  const path = pathOf(request);
  const deepest = path ? tree.handles.handle(tree.run.runId, path) : undefined;
  if (!deepest) {
    return false;
  }
  let row = deepest;
  if (row.status === "pending" && pendingOfHandle(row)?.id === request.id) {
    tree.deps.record(tree.run.runId, "resumed", { requestId: request.id, handle: row.handle });
    row = await stepHandle(tree, row, { kind: "answer", request, answer });
  }
  const top = rootHandleOf(tree.run);
  for (;;) {
    if (row.parent === top) {
      fillRunSlot(tree, boundedSlot(tree, row, tree.run.agent));
      return true;
    }
    const parent = tree.handles.handle(tree.run.runId, row.parent);
    if (!parent) {
      throw new Error(`handle ${row.handle} has no parent row ${row.parent}`);
    }
    if (parent.status !== "pending") {
      row = parent; // settled before a crash: its outcome is already recorded
      continue;
    }
    fillHandleSlot(tree, parent, boundedSlot(tree, row, parent.agent));
    row = await stepHandle(tree, tree.handles.handle(tree.run.runId, parent.handle) as HandleRow, {
      kind: "continue",
    });
  }
}

/**
 * A child's outcome as its caller's slot: what the caller's model is sent is bounded by the
 * caller's `maxToolOutputBytes`, as the loop bounds any tool output (a task result that
 * settles here never passes through the caller's loop); the call's log keeps it whole.
 */
interface BoundedSlot {
  message: ToolMessage;
  /** The whole output, for the call's `toolCalls` entry. */
  output: string;
  truncated?: Truncation;
}

function boundedSlot(tree: TreeContext, row: HandleRow, callerAgent: string): BoundedSlot {
  const message = slotMessageOf(row);
  if (message.pending) {
    return { message, output: message.content }; // a placeholder is never cut
  }
  const max =
    tree.deps.agents.get(callerAgent)?.maxToolOutputBytes ?? DEFAULT_MAX_TOOL_OUTPUT_BYTES;
  const sent = boundToolOutput(message.content, max);
  return {
    message: { ...message, content: sent.text },
    output: message.content,
    ...(sent.truncated ? { truncated: sent.truncated } : {}),
  };
}

function fillHandleSlot(tree: TreeContext, parent: HandleRow, slot: BoundedSlot): void {
  const { message } = slot;
  const slots = parent.slots ?? [];
  const next = slots.map((open) => (open.toolCallId === message.toolCallId ? message : open));
  const toolCalls = parent.toolCalls;
  tree.deps.transaction(() => {
    tree.handles.update(
      { runId: tree.run.runId, handle: parent.handle },
      {
        slots: next,
        ...(message.pending ? {} : { toolCalls: [...toolCalls, callEntry(slot)] }),
        updatedAt: tree.deps.now(),
      },
    );
  });
}

/** The run's own halted turn: the `task` slot replaced, its result logged like any call's. */
function fillRunSlot(tree: TreeContext, slot: BoundedSlot): void {
  const { message } = slot;
  const { deps, run } = tree;
  const { messages } = deps.store.transcript(run.runId);
  const calls = lastCalls(messages);
  const position = calls.findIndex((c) => c.id === message.toolCallId);
  if (position < 0) {
    throw new Error(`run ${run.runId} has no open call ${message.toolCallId}`);
  }
  const call = calls[position];
  deps.transaction(() => {
    deps.store.putSlot(run.runId, position, message);
    if (message.pending || !call) {
      return;
    }
    const args = parseArgs(call.arguments);
    const truncated = slot.truncated ? { truncated: slot.truncated } : {};
    deps.store.appendToolCalls(run.runId, [
      {
        id: call.id,
        name: call.name,
        args,
        output: slot.output,
        isError: message.isError === true,
        ...truncated,
      },
    ]);
    deps.record(run.runId, "tool_result", {
      id: call.id,
      name: call.name,
      output: message.content,
      isError: message.isError === true,
      ...truncated,
    });
  });
}

function lastCalls(messages: Message[]) {
  const assistant = messages.findLast((m) => m.role === "assistant");
  return assistant?.role === "assistant" ? (assistant.toolCalls ?? []) : [];
}

function callEntry({ message, output, truncated }: BoundedSlot): ToolCallRecord {
  return {
    id: message.toolCallId,
    name: "task",
    args: null,
    output,
    isError: message.isError === true,
    ...(truncated ? { truncated } : {}),
  };
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
