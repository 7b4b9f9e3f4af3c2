/**
 * The notify queue's approver notifications: one message, one delivery of the request to
 * its run's callbackUrl (src/edge/notify/notification.ts builds and signs it).
 *
 * Why a delivery does not hold its batch for its whole timeout: a batch is finished only
 * when its handler returns, and a queue hands out its next batch after that (miniflare
 * always runs one batch per queue at a time; Cloudflare does too until it scales consumers
 * out). A receiver that takes its full NOTIFY_TIMEOUT_MS would make every healthy receiver
 * in the next batch wait that long. So a delivery holds its batch for at most
 * NOTIFY_HOLD_MS; one still unanswered then is handed back to the queue, retried on its own
 * backoff, and keeps going in the background (`ctx.waitUntil`: wrangler.toml's
 * `queue_consumer_no_wait_for_wait_until` flag lets the batch end without waiting for it).
 * If that late attempt gets a 2xx the thread records it, and the redelivery is acknowledged
 * without a second send; the same webhook-id is used throughout, so a receiver that saw
 * both can deduplicate.
 */
import type { NotifyMessage, NotificationSource, ThreadRpc } from "../protocol";
import type { EdgeConfig, EdgeEnv } from "../settings";
import { threadStub } from "../http/threads";
import { checkCallbackUrl } from "./callback-url";
import {
  buildNotification,
  deliver,
  NOTIFY_MAX_DELIVERIES,
  NOTIFY_TIMEOUT_MS,
  retryDelaySeconds,
  type DeliveryResult,
} from "./notification";
import type { ErrorInfo } from "../error-sink";

/** How long one delivery may hold its batch before it is handed back and finished in the background. */
export const NOTIFY_HOLD_MS = 1_000;

export interface NotifyConsumerOptions {
  fetch?: typeof fetch | undefined;
  notifyTimeoutMs?: number | undefined;
  notifyHoldMs?: number | undefined;
  report: (error: unknown, info: ErrorInfo) => void;
}

/** Delivers one notification; acks it, or retries it on its backoff when the receiver failed. */
export async function handleNotification(
  message: Message<NotifyMessage>,
  { env, ctx, config }: { env: EdgeEnv; ctx: ExecutionContext | undefined; config: EdgeConfig },
  options: NotifyConsumerOptions,
): Promise<void> {
  const thread = threadStub(env, message.body.threadId);
  const source: NotificationSource | undefined = await thread.notification(message.body);
  if (!source?.run.callbackUrl) {
    return message.ack(); // decided, gone, or already delivered meanwhile: nothing to say
  }
  const url = source.run.callbackUrl;
  // Checked again: a run stored before the check existed, or CALLBACK_ALLOW changed.
  const checked = checkCallbackUrl(url, config.callbackAllow);
  if (!checked.ok) {
    await thread.notificationFailed(message.body, `callbackUrl ${checked.reason}; not sent`);
    return message.ack();
  }
  const timeoutMs = options.notifyTimeoutMs ?? NOTIFY_TIMEOUT_MS;
  const sending = deliver(url, await buildNotification(source, config, message.body), {
    config,
    fetch: options.fetch,
    timeoutMs,
  });
  const failed = (result: { reason: string }) =>
    options.report(
      new Error(
        `notification for ${message.body.requestId} to ${url} failed (attempt ${message.attempts}): ${result.reason}`,
      ),
      { source: "notify", ...idsOf(message.body), recoverable: true },
    );

  // Without a context to keep it alive, the delivery holds the batch for its whole timeout.
  const held = ctx
    ? await settledWithin(sending, options.notifyHoldMs ?? NOTIFY_HOLD_MS)
    : await sending;
  if (held) {
    if (held.ok) {
      return message.ack();
    }
    failed(held);
    return message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
  }

  // Still unanswered: the batch lets go of it; the attempt goes on in the background.
  const last = message.attempts >= NOTIFY_MAX_DELIVERIES;
  ctx?.waitUntil(
    finishLate(
      sending,
      { thread, message: message.body, last },
      { failed, report: options.report },
    ),
  );
  if (last) {
    // A retry now would dead-letter it at once, and the dead-letter consumer would record a
    // failure before this attempt has its answer: so this attempt records its own outcome.
    message.ack();
  } else {
    // After the usual backoff plus the attempt's own bound, so the redelivery finds its outcome.
    message.retry({
      delaySeconds: retryDelaySeconds(message.attempts) + Math.ceil(timeoutMs / 1000),
    });
  }
}

/** The result, when `sending` settles within `holdMs`; undefined when it is still going. */
async function settledWithin(
  sending: Promise<DeliveryResult>,
  holdMs: number,
): Promise<DeliveryResult | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hold = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), holdMs);
  });
  try {
    return await Promise.race([sending, hold]);
  } finally {
    clearTimeout(timer);
  }
}

/** A handed-back attempt's outcome: a success is remembered; the last attempt's failure recorded. */
async function finishLate(
  sending: Promise<DeliveryResult>,
  {
    thread,
    message,
    last,
  }: {
    thread: Pick<ThreadRpc, "notificationDelivered" | "notificationFailed">;
    message: NotifyMessage;
    /** The last delivery the queue allows: a failure now is recorded as given up. */
    last: boolean;
  },
  {
    failed,
    report,
  }: {
    failed: (result: { reason: string }) => void;
    report: NotifyConsumerOptions["report"];
  },
): Promise<void> {
  try {
    const result = await sending;
    if (result.ok) {
      await thread.notificationDelivered(message);
      return;
    }
    failed(result);
    if (last) {
      const reason = `gave up after ${NOTIFY_MAX_DELIVERIES} deliveries`;
      if (!(await thread.notificationFailed(message, reason))) {
        return;
      }
      report(new Error(`notification for ${message.requestId} failed: ${reason}`), {
        source: "notify",
        ...idsOf(message),
        recoverable: false,
      });
    }
  } catch (error) {
    // Recording the outcome failed: the redelivery (if any) sends again, under the same id.
    report(error, { source: "notify", ...idsOf(message), recoverable: !last });
  }
}

function idsOf(message: NotifyMessage): Pick<ErrorInfo, "runId" | "threadId" | "requestId"> {
  return { runId: message.runId, threadId: message.threadId, requestId: message.requestId };
}
