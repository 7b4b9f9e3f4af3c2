/**
 * Queue consumers. `resume` messages ask a thread to do whatever work its stored
 * state holds (start, apply a decision, recover); `notify` messages deliver a
 * pending request to the run's callbackUrl; dead letters are recorded on the run.
 */
import type { DriveMessage, NotifyMessage } from "../protocol";
import { readConfig, type EdgeEnv, settings } from "../settings";
import { threadStub } from "../http/threads";
import type { ApproverGroupsInit } from "../approvals/groups";
import { slackApi } from "../slack/api";
import { isSlackSync, syncSlack, type SlackSyncMessage } from "../slack/sync";
import { type EmailSyncMessage, isEmailSync, syncEmail } from "../email/sync";
import { emailSender } from "../email/send";
import { isTeamsSync, syncTeams, type TeamsSyncMessage } from "../teams/sync";
import { teamsConnector } from "../teams/connector";
import { NOTIFY_MAX_DELIVERIES, retryDelaySeconds } from "./notification";
import { handleNotification } from "./consumer";
import type { ErrorInfo } from "../error-sink";
import { messageKind, mismatchReporter, unknownQueueMessage } from "./queue-kinds";

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
  report: (error: unknown, info: ErrorInfo) => void;
  approverGroups?: ApproverGroupsInit;
  notifyTimeoutMs?: number;
  notifyHoldMs?: number;
}) {
  const names = { ...DEFAULT_QUEUES, ...options.queues };
  const { report } = options;
  const handleResume = async (message: Message<DriveMessage>, env: EdgeEnv) => {
    await threadStub(env, message.body.threadId).drive(message.body.runId);
    message.ack();
  };
  const handleNotify = async (
    message: Message<NotifyMessage | SlackSyncMessage | EmailSyncMessage | TeamsSyncMessage>,
    env: EdgeEnv,
    ctx: ExecutionContext | undefined,
  ) => {
    if (isSlackSync(message.body)) {
      await slackSync(env, message.body, options.approverGroups);
      return message.ack();
    }
    if (isTeamsSync(message.body)) {
      await teamsSync(env, message.body, options.approverGroups);
      return message.ack();
    }
    if (isEmailSync(message.body)) {
      await emailSync(env, message.body, options.approverGroups);
      return message.ack();
    }
    return handleNotification(
      message as Message<NotifyMessage>,
      { env, ctx, config: readConfig(env) },
      {
        fetch: options.fetch,
        notifyTimeoutMs: options.notifyTimeoutMs,
        notifyHoldMs: options.notifyHoldMs,
        report,
      },
    );
  };
  // Set once per consumer: a queue wrangler.toml names but createEdge({ queues }) does not.
  let mismatch: ReturnType<typeof mismatchReporter> | undefined;
  return async function queue(
    batch: MessageBatch<unknown>,
    env: EdgeEnv,
    ctx?: ExecutionContext,
  ): Promise<void> {
    const each = eachMessage(report);
    switch (batch.queue) {
      case names.resume:
        return each(batch, (message: Message<DriveMessage>) => handleResume(message, env));
      case names.notify:
        return each(
          batch,
          (
            message: Message<
              NotifyMessage | SlackSyncMessage | EmailSyncMessage | TeamsSyncMessage
            >,
          ) => handleNotify(message, env, ctx),
        );
      case names.notifyDeadLetter:
        return each(batch, async (message: Message<NotifyMessage>) => {
          // `message.attempts` counts deliveries from this dead-letter queue, not the sends.
          const reason = `gave up after ${NOTIFY_MAX_DELIVERIES} deliveries`;
          const failed = await threadStub(env, message.body.threadId).notificationFailed(
            message.body,
            reason,
          );
          if (!failed) {
            return message.ack(); // a late attempt got through after its batch let go of it
          }
          report(new Error(`notification for ${message.body.requestId} failed: ${reason}`), {
            source: "notify",
            ...idsOf(message.body),
            recoverable: false,
          });
          message.ack();
        });
      case names.resumeDeadLetter:
        // The thread's alarm retries its own work; a dead resume message only needs to be visible.
        return each(batch, async (message: Message<DriveMessage>) => {
          // Not `message.attempts`: that counts deliveries from the dead-letter queue itself.
          report(new Error("resume message dead-lettered (its max_retries were used up)"), {
            source: "queue",
            ...idsOf(message.body),
            recoverable: true,
          });
          message.ack();
        });
      default: {
        // Misnamed: each message is handled by what its body says (a dead letter of an
        // unknown queue is handled like a fresh message: driving and notifying are idempotent).
        mismatch ??= mismatchReporter(report, (threadId, runId, text) =>
          threadStub(env, threadId).configProblem(runId, text),
        );
        const told = mismatch;
        const text = unknownQueueMessage(batch.queue, Object.values(names));
        return each(batch, async (message: Message<unknown>) => {
          const kind = messageKind(message.body);
          if (kind === "unknown") {
            await told(batch.queue, text);
            // Nothing to go on: retried, so a fixed configuration can still pick it up.
            return message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
          }
          await told(batch.queue, text, message.body as DriveMessage);
          return kind === "resume"
            ? handleResume(message as Message<DriveMessage>, env)
            : handleNotify(
                message as Message<
                  NotifyMessage | SlackSyncMessage | EmailSyncMessage | TeamsSyncMessage
                >,
                env,
                ctx,
              );
        });
      }
    }
  };
}

/** Posts or updates the request's Slack message; throws (so the message retries) when Slack fails. */
async function slackSync(
  env: EdgeEnv,
  body: SlackSyncMessage,
  approverGroups: ApproverGroupsInit | undefined,
): Promise<void> {
  const { slack } = settings(env);
  const channel = settings(env).approvers(approverGroups).groups.get(body.slack.group)
    ?.slack?.channel;
  if (!slack || !channel) {
    return; // Slack switched off (or the group lost its channel) since the message was sent
  }
  await syncSlack({ thread: threadStub(env, body.threadId), api: slackApi(slack) }, body, channel);
}

/** Sends the request's approval (or reminder) emails still owed; throws (so the message retries) when one failed. */
async function emailSync(
  env: EdgeEnv,
  body: EmailSyncMessage,
  approverGroups: ApproverGroupsInit | undefined,
): Promise<void> {
  const { email } = settings(env);
  const directory = settings(env).approvers(approverGroups);
  const group = directory.groups.get(body.email.group);
  if (!email || !group) {
    return; // email switched off (or the group is gone) since the message was sent
  }
  const config = readConfig(env);
  await syncEmail(
    {
      thread: threadStub(env, body.threadId),
      send: emailSender(email),
      from: email.from,
      publicUrl: config.publicUrl,
      webhookSecrets: config.webhookSecrets,
      resolve: (identity) => directory.resolve(identity),
    },
    body,
    group,
  );
}

/** Posts or replaces the request's Teams card; throws (so the message retries) when Teams fails. */
async function teamsSync(
  env: EdgeEnv,
  body: TeamsSyncMessage,
  approverGroups: ApproverGroupsInit | undefined,
): Promise<void> {
  const { teams } = settings(env);
  const target = settings(env).approvers(approverGroups).groups.get(body.teams.group)?.teams;
  if (!teams || !target) {
    return; // Teams switched off (or the group lost its conversation) since the message was sent
  }
  await syncTeams(
    { thread: threadStub(env, body.threadId), connector: teamsConnector(teams) },
    body,
    target,
  );
}

/** The run and thread a queue message is about, when its body says. */
function idsOf(body: unknown): Pick<ErrorInfo, "runId" | "threadId" | "requestId"> {
  if (typeof body !== "object" || body === null) {
    return {};
  }
  const { runId, threadId, requestId } = body as Record<string, unknown>;
  return {
    ...(typeof runId === "string" ? { runId } : {}),
    ...(typeof threadId === "string" ? { threadId } : {}),
    ...(typeof requestId === "string" ? { requestId } : {}),
  };
}

/**
 * Handles a batch's messages concurrently, each acked or retried on its own: one slow
 * receiver or thread never holds up the others (each notification is bounded by its own
 * timeout). A failure retries that message only.
 */
function eachMessage(report: (error: unknown, info: ErrorInfo) => void) {
  return async <T>(
    batch: MessageBatch<unknown>,
    handle: (message: Message<T>) => Promise<void>,
  ): Promise<void> => {
    await Promise.all(
      (batch.messages as readonly Message<T>[]).map(async (message) => {
        try {
          await handle(message);
        } catch (error) {
          report(error, { source: "queue", ...idsOf(message.body), recoverable: true });
          message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
        }
      }),
    );
  };
}
