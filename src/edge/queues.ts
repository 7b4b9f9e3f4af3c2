/**
 * Queue consumers. `resume` messages ask a thread to do whatever work its stored
 * state holds (start, apply a decision, recover); `notify` messages deliver a
 * pending request to the run's callbackUrl; dead letters are recorded on the run.
 */
import type { DriveMessage, NotifyMessage, NotificationSource } from "./protocol";
import { readConfig, type EdgeEnv } from "./config";
import { threadStub } from "./threads";
import { checkCallbackUrl } from "./callback-url";
import { buildNotification, deliver, retryDelaySeconds } from "./notify";

export interface QueueNames {
  resume: string;
  notify: string;
  notifyDeadLetter: string;
  resumeDeadLetter: string;
}

export const DEFAULT_QUEUES: QueueNames = {
  resume: "toolnexus-resume",
  notify: "toolnexus-notify",
  notifyDeadLetter: "toolnexus-notify-dlq",
  resumeDeadLetter: "toolnexus-resume-dlq",
};

export function createQueueHandler(options: {
  queues?: Partial<QueueNames>;
  fetch?: typeof fetch;
}) {
  const names = { ...DEFAULT_QUEUES, ...options.queues };
  return async function queue(batch: MessageBatch<unknown>, env: Env & EdgeEnv): Promise<void> {
    switch (batch.queue) {
      case names.resume:
        return each(batch, async (message: Message<DriveMessage>) => {
          await threadStub(env, message.body.threadId).drive(message.body.runId);
          message.ack();
        });
      case names.notify: {
        const config = readConfig(env);
        return each(batch, async (message: Message<NotifyMessage>) => {
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
            await buildNotification(source, config),
            config,
            options.fetch,
          );
          if (result.ok) {
            message.ack();
          } else {
            message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
          }
        });
      }
      case names.notifyDeadLetter:
        return each(batch, async (message: Message<NotifyMessage>) => {
          await threadStub(env, message.body.threadId).notificationFailed(
            message.body,
            `gave up after ${message.attempts} attempts`,
          );
          message.ack();
        });
      case names.resumeDeadLetter:
        // The thread's alarm retries its own work; a dead resume message only needs to be visible.
        return each(batch, async (message: Message<DriveMessage>) => {
          console.error("resume message dead-lettered", message.body);
          message.ack();
        });
      default:
        console.error(`unknown queue ${batch.queue}; messages retried`);
        batch.retryAll();
    }
  };
}

/** Handles messages one by one; a failure retries that message only. */
async function each<T>(
  batch: MessageBatch<unknown>,
  handle: (message: Message<T>) => Promise<void>,
): Promise<void> {
  for (const message of batch.messages as readonly Message<T>[]) {
    try {
      await handle(message);
    } catch (error) {
      console.error(`queue ${batch.queue}: message ${message.id} failed`, error);
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}
