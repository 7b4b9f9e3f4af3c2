/**
 * Driving at once (issue 26): the object that has just recorded a decision, or started a run,
 * drives it in the same invocation, in the background after its answer, instead of waiting
 * for the resume queue's batch (about a second, most of a decision's latency). The queue
 * message is still sent, and the alarm still armed, as the durable paths: a process that
 * dies before this drive finishes leaves the work in storage for whichever comes next, and
 * whichever arrives second finds it done (the drive lock serializes drives in one object;
 * the ledger's `applied_at` and the stored call results make a later drive a no-op).
 */
import type { OutboxDelivery } from "../../outbox/delivery";
import { drive } from ".";
import type { ThreadContext } from "../context";

export function driveNow(t: ThreadContext, delivery: OutboxDelivery, runId: string): void {
  // A failure is already recorded and reported by the driver (durable/thread/drive/index.ts), and retried by the
  // queue's delivery or the watchdog alarm armed before the drive began; nobody awaits this.
  t.state.waitUntil(drive(t, delivery, runId).catch(() => {}));
}
