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

/**
 * What became of an answer: `answered`, the sub-agent that asked took it now (its `resumed {
 * requestId, handle }` recorded); `replayed`, its handle took it before a crash and the levels
 * above are carried on from what is stored; `none`, not a sub-agent's request. Either of the
 * first two leaves the run's slot holding what its tree produced.
 */
export type RouteOutcome = "answered" | "replayed" | "none";

export async function routeAnswer(
  tree: TreeContext,
  request: Request,
  answer: Answer,
): Promise<RouteOutcome> {
  const path = pathOf(request);
  const deepest = path ? deepestSuspended(tree, path, request.id) : undefined;
  if (!deepest) {
    return "none";
  }
  let row = deepest;
  let outcome: RouteOutcome = "replayed";
  if (row.status === "pending" && pendingOfHandle(row)?.id === request.id) {
    tree.deps.record(tree.run.runId, "resumed", { requestId: request.id, handle: row.handle });
    outcome = "answered";
    row = await stepHandle(tree, row, { kind: "answer", request, answer });
  }
  const top = rootHandleOf(tree.run);
  for (;;) {
    if (row.parent === top) {
      fillRunSlot(tree, boundedSlot(tree, row, tree.run.agent));
      return outcome;
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
 * The deepest handle suspended on the request within the subtree `path` names (the path is
 * the subtree's top, issue 40; an older run's path names the deepest handle itself). Else the
 * subtree's top, whose recorded outcome the cascade then carries up.
 */
function deepestSuspended(tree: TreeContext, path: string, requestId: string) {
  let found: HandleRow | undefined;
  for (const row of tree.handles.handles(tree.run.runId)) {
    const inside = row.handle === path || row.handle.startsWith(`${path}/`);
    if (inside && row.status === "pending" && pendingOfHandle(row)?.id === requestId) {
      if (!found || row.depth > found.depth) {
        found = row;
      }
    }
  }
  return found ?? tree.handles.handle(tree.run.runId, path);
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
  const nextCalls = message.pending ? toolCalls : [...toolCalls, callEntry(slot)];
  tree.deps.transaction(() => {
    tree.handles.update(
      { runId: tree.run.runId, handle: parent.handle },
      {
        slots: next,
        ...(message.pending ? {} : { toolCalls: nextCalls }),
        updatedAt: tree.deps.now(),
      },
    );
  });
  tree.ledger().spent(parent.handle, {
    turns: parent.turns,
    usage: parent.usage,
    toolCalls: nextCalls.length,
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
