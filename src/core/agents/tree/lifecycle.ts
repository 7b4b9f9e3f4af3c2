/**
 * `interrupt` and `close` (SPEC §7D). Interrupt aborts the in-flight run — never a kill — and
 * leaves the handle `idle` with its drained inbox restored; on a durably suspended handle it
 * cancels the pending request (and the same request below it). Close stops accepting work,
 * closes the children leaf-first, lets a running turn finish within `shutdownMs` (then
 * interrupts it), calls `onClose`, and keeps the final state queryable.
 */
import { errorMessage } from "../../errors";
import { get, transition, viewOf, type RuntimeCore } from "../core";
import { resultOf } from "./turn";
import type { Live } from "./handle";
import type { AgentResult, CloseReason } from "../types";

export async function interrupt(core: RuntimeCore, id: string): Promise<void> {
  const live = get(core, id);
  const record = live.record;
  if (live.busy) {
    live.controller?.abort(new Error(`interrupted: ${id}`));
    await live.settled;
    return;
  }
  if (record.queued) {
    dequeue(core, live);
    settleWith(live, resultOf(record, "interrupted", { error: "wake cancelled" }));
    return;
  }
  if (record.state === "suspended") {
    const request = record.pending;
    // The same request held lower down (the child that asked, and levels between) is cancelled first.
    for (const childId of record.children) {
      const child = core.live.get(childId);
      if (child?.record.state === "suspended" && child.record.pending?.id === request?.id) {
        await interrupt(core, childId);
      }
    }
    delete record.pending;
    delete record.halted;
    transition(core, record, "idle");
    const cancelled = `request ${request?.id ?? "?"} cancelled`;
    settleWith(live, resultOf(record, "interrupted", { error: cancelled }));
  }
}

export async function close(
  core: RuntimeCore,
  id: string,
  options: { force?: boolean; reason?: CloseReason } = {},
): Promise<void> {
  const live = get(core, id);
  const record = live.record;
  if (record.state === "closed" || live.closing) {
    await live.settled;
    return;
  }
  live.closing = true;
  for (const child of [...record.children]) {
    await close(core, child, { force: options.force ?? false, reason: "closed" });
  }
  if (record.queued) {
    dequeue(core, live);
  }
  if (live.busy) {
    if (options.force) {
      await interrupt(core, id);
    } else {
      await finishWithin(core, live);
    }
  }
  if (record.state === "suspended") {
    await interrupt(core, id);
  }
  const reason = options.reason ?? "closed";
  try {
    await live.def?.onClose?.(viewOf(core, live), reason);
  } catch (error) {
    core.note(`${id}: onClose failed: ${errorMessage(error)}`);
  }
  transition(core, record, "closed");
  settleWith(live, record.result ?? resultOf(record, "closed", { error: "closed" }));
}

/** A running turn may finish, bounded by `shutdownMs` on the runtime clock; then it is interrupted. */
async function finishWithin(core: RuntimeCore, live: Live): Promise<void> {
  let cancel = () => {};
  const deadline = new Promise<"late">((resolve) => {
    cancel = core.clock.setTimer(core.options.shutdownMs, () => resolve("late"));
  });
  const outcome = await Promise.race([live.settled?.then(() => "done" as const), deadline]);
  cancel();
  if (outcome === "late") {
    core.note(`${live.record.id}: shutdownMs elapsed, interrupting`);
    await interrupt(core, live.record.id);
  }
}

function dequeue(core: RuntimeCore, live: Live): void {
  const parent = live.record.parent === null ? undefined : core.live.get(live.record.parent);
  if (parent) {
    parent.wakeQueue = parent.wakeQueue.filter((queued) => queued !== live.record.id);
  }
  live.record.queued = false;
  delete live.queuedPrompt;
}

function settleWith(live: Live, result: AgentResult): void {
  live.record.result = result;
  for (const resolve of live.waiters.splice(0)) {
    resolve(result);
  }
}
