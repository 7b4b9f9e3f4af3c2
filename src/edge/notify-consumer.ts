/**
 * The notify queue's approver notifications: one message, one delivery of the request to
 * its run's callbackUrl (src/edge/notify.ts builds and signs it).
 */
import type { NotifyMessage, NotificationSource } from "./protocol";
import type { EdgeConfig, EdgeEnv } from "./config";
import { threadStub } from "./threads";
import { checkCallbackUrl } from "./callback-url";
import { buildNotification, deliver, retryDelaySeconds } from "./notify";
import type { ErrorInfo } from "./error-sink";

export interface NotifyConsumerOptions {
  fetch?: typeof fetch | undefined;
  notifyTimeoutMs?: number | undefined;
  report: (error: unknown, info: ErrorInfo) => void;
}

/** Delivers one notification; acks it, or retries it on its backoff when the receiver failed. */
export async function handleNotification(
  message: Message<NotifyMessage>,
  env: EdgeEnv,
  config: EdgeConfig,
  options: NotifyConsumerOptions,
): Promise<void> {
  const source: NotificationSource | undefined = await threadStub(
    env,
    message.body.threadId,
  ).notification(message.body);
  if (!source?.run.callbackUrl) {
    return message.ack(); // decided or gone meanwhile: nothing to say
  }
  // Checked again: a run stored before the check existed, or CALLBACK_ALLOW changed.
  const checked = checkCallbackUrl(source.run.callbackUrl, config.callbackAllow);
  if (!checked.ok) {
    await threadStub(env, message.body.threadId).notificationFailed(
      message.body,
      `callbackUrl ${checked.reason}; not sent`,
    );
    return message.ack();
  }
  const result = await deliver(
    source.run.callbackUrl,
    await buildNotification(source, config, message.body),
    config,
    { fetch: options.fetch, timeoutMs: options.notifyTimeoutMs },
  );
  if (result.ok) {
    message.ack();
  } else {
    options.report(
      new Error(
        `notification for ${message.body.requestId} to ${source.run.callbackUrl} failed (attempt ${message.attempts}): ${result.reason}`,
      ),
      {
        source: "notify",
        runId: message.body.runId,
        threadId: message.body.threadId,
        requestId: message.body.requestId,
        recoverable: true,
      },
    );
    message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
  }
}
