/**
 * The persistence seam of the runtime: the tree as plain JSON. `snapshot()` returns one
 * record per handle (the shape is documented in handle.ts); `restoreRecords` checks a saved
 * snapshot and turns it back into records a new runtime starts from. A handle that was
 * running when the snapshot was taken cannot continue a run that no longer exists: it comes
 * back `idle` with the items its turn had drained back in its inbox (as after an interrupt),
 * and a queued wake is dropped. Suspended handles come back suspended: the answer resumes them.
 */
import type { HandleRecord } from "./handle";

export interface RuntimeSnapshot {
  version: 1;
  handles: HandleRecord[];
}

export function restoreRecords(snapshot: RuntimeSnapshot): HandleRecord[] {
  if (snapshot?.version !== 1 || !Array.isArray(snapshot.handles)) {
    throw new TypeError("restore: not a runtime snapshot (version 1 with a handles array)");
  }
  return snapshot.handles.map((saved) => {
    const record: HandleRecord = structuredClone(saved);
    if (typeof record.id !== "string" || typeof record.agent !== "string") {
      throw new TypeError("restore: every handle record needs an id and an agent");
    }
    if (record.state === "running") {
      record.inbox = [...record.draining, ...record.inbox];
      record.draining = [];
      record.state = "idle";
      record.transitions.push("running→idle");
    }
    record.queued = false;
    return record;
  });
}
