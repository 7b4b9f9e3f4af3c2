/**
 * Recording an undo (the route's, an approved undo request's, or an agent's automatic one on
 * failure): its row, its `undo` event and, when it needs approval, its request kept with its
 * rules and shown in the approvers' inboxes — one transaction. Driving it is drive.ts's.
 */
import type { Request } from "../../src/core/types";
import type { UndoInput } from "../../src/edge/undo/types";
import type { ThreadContext } from "../thread/context";

/** Records the undo and its `undo` event (call with nothing awaited since the checks). */
export function beginUndo(
  t: ThreadContext,
  input: UndoInput & { plan: string[]; request?: Request },
): void {
  t.state.storage.transactionSync(() => {
    const { request } = input;
    t.undo.begin({
      runId: input.runId,
      reason: input.reason,
      requestedBy: input.requestedBy,
      now: Date.now(),
      ...(request ? { request } : {}),
    });
    t.events.record(input.runId, "undo", {
      reason: input.reason,
      requestedBy: input.requestedBy,
      calls: input.plan,
      ...(request ? { requestId: request.id } : {}),
    });
    if (request) {
      // A request like any other: its rules kept with it, shown in the approvers' inboxes.
      t.votes.keepRequest(input.runId, request);
      t.inbox.surfaced(t.store.requireRun(input.runId), request);
    }
  });
}
