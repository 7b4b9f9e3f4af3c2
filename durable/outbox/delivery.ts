/**
 * Delivering the approvals inbox's outbox from a thread object: one delivery at a time,
 * rows written meanwhile go in the next round, each group's Slack channel first and then its
 * `InboxObject`. Never throws: what a round misses, the object's alarm retries from storage
 * (the outbox's retry time is one of its timers).
 */
import { inboxStub } from "../../src/edge/inbox/rpc";
import { deliverOutbox } from "./inbox";
import type { ThreadContext } from "../thread/context";
import { armAlarm } from "../thread/alarms";
import { deliverPendingVersion, deliverThreadReceipts } from "./receipt-delivery";

/**
 * Outbox rounds per delivery: rows written while a round is in flight go in the next one;
 * a thread that keeps writing faster than its inboxes accept leaves the rest to the alarm
 * (the outbox's retry time), so one call never loops on a busy thread.
 */
export const MAX_OUTBOX_ROUNDS = 10;

export class OutboxDelivery {
  #delivering: Promise<void> | undefined;

  constructor(private readonly t: ThreadContext) {}

  /**
   * Delivers the outbox now, in the background; the alarm retries whatever this misses.
   * With `arm`, the round arms the alarm for what is left once it is done, whatever it sent:
   * a drive's end hands its arming to the round it starts, so the timers are read once
   * after both (issue 46), not once before the round's deliveries and again after them.
   */
  soon(options: { arm?: boolean } = {}): void {
    this.t.state.waitUntil(this.deliver(options));
  }

  /** One delivery at a time; resolves once the rows written before the call went out (or failed). */
  async deliver({ arm = false }: { arm?: boolean } = {}): Promise<void> {
    while (this.#delivering) {
      await this.#delivering;
    }
    this.#delivering = this.#round(arm).finally(() => {
      this.#delivering = undefined;
    });
    await this.#delivering;
  }

  async #round(arm: boolean): Promise<void> {
    const t = this.t;
    try {
      let failures = 0;
      for (let pass = 0; pass < MAX_OUTBOX_ROUNDS; pass += 1) {
        const { delivered, failed } = await deliverOutbox(t.outbox, {
          send: async (group, items) => {
            // Slack, email and Teams first: if the inbox then fails, the retry sends them again (all
            // idempotent: Slack and Teams update their message, email sends each member's once).
            await t.sends.syncSlack(group, items);
            await t.sends.syncEmail(group, items);
            await t.sends.syncTeams(group, items);
            await inboxStub(t.env, group).apply(items);
          },
          transaction: (fn) => t.state.storage.transactionSync(fn),
          onFailure: (group, items, error) =>
            t.report(
              new Error(`inbox ${group}: delivery failed, retried by the alarm`, { cause: error }),
              {
                source: "inbox",
                threadId: items[0]?.threadId,
                runId: items[0]?.runId,
                recoverable: true,
              },
            ),
        });
        failures += failed;
        if (failed > 0 || delivered === 0) {
          break;
        }
      }
      // The pending version rides on the receipts' call when there is one (issue 46: one call
      // fewer per decision), else goes on its own. Read once, before: a run that changes while
      // the receipts are sent is sent by the round its drive's end starts, which comes after.
      const pending = t.pendingVersion.due();
      const receipts = await deliverThreadReceipts(t, pending);
      if (receipts.failed) {
        failures += 1;
      }
      if (pending && !receipts.carried) {
        await deliverPendingVersion(t, pending);
      }
      // A failure stored a retry time, which the alarm must be armed for. A delivery that
      // succeeded needs no arming (issue 46: it was a full arming in most rounds): had an
      // earlier failure armed the alarm for its retry, that alarm finds nothing left, and
      // arms again from what is.
      if (arm || failures > 0) {
        await armAlarm(t);
      }
    } catch (error) {
      // The object is going away (or storage failed): the alarm retries from storage.
      t.report(error, { source: "inbox", recoverable: true });
    }
  }
}
