/**
 * Which approver notifications a receiver has already acknowledged, by webhook id.
 *
 * A delivery that outlasts its batch's hold (src/edge/notify/consumer.ts) is handed back to
 * the queue for redelivery and keeps going in the background; when that late attempt gets a
 * 2xx, it is recorded here, so the redelivery finds it and is acknowledged without sending
 * again, and the dead-letter consumer does not record a failure for it. Kept in the object's
 * key-value storage (no table, no migration): one small key per delivered notification.
 */
import type { NotifyMessage } from "../../src/edge/protocol";
import { notificationId, notificationType } from "../../src/edge/notify/notification";

const PREFIX = "notify-delivered:";

/** The webhook id the notification for `message` is sent under (as src/edge/notify/notification.ts signs it). */
function webhookIdOf(message: NotifyMessage): string {
  return notificationId({
    runId: message.runId,
    request: { id: message.requestId },
    type: notificationType(message),
    ...(message.reminder ? { reminder: message.reminder } : {}),
  });
}

export class NotifyDelivered {
  constructor(private readonly storage: DurableObjectStorage) {}

  async record(message: NotifyMessage): Promise<void> {
    await this.storage.put(PREFIX + webhookIdOf(message), Date.now());
  }

  async has(message: NotifyMessage): Promise<boolean> {
    return (await this.storage.get(PREFIX + webhookIdOf(message))) !== undefined;
  }
}
