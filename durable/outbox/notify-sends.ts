/**
 * What a thread sends on the `notify` queue: approver notifications (from its
 * notify outbox), Slack message syncs for groups with a channel, Slack reminders, and the
 * approval emails and reminder emails when email is on. The
 * queue's consumer does the slow part (HTTP to the receiver or to Slack) with its own
 * retries; these only hand messages over.
 */
import { errorMessage } from "../../src/core/errors";
import type { ApproverGroupsInit } from "../../src/edge/approvals/groups";
import { type EdgeEnv, settings } from "../../src/edge/settings";
import type { ErrorInfo } from "../../src/edge/error-sink";
import type { InboxItem } from "../../src/edge/inbox/item";
import type { SlackSyncMessage } from "../../src/edge/slack/sync";
import type { EmailSyncMessage } from "../../src/edge/email/sync";
import type { TeamsSyncMessage } from "../../src/edge/teams/sync";
import type { EventHub } from "../thread/event-hub";
import { MAX_NOTIFY_SEND_ATTEMPTS, type NotifyOutbox } from "./notify";
import type { SlackMessages } from "./slack-messages";

export interface NotifySendDeps {
  env: EdgeEnv;
  approverGroups: ApproverGroupsInit | undefined;
  /** The queue binding, read when a message goes out (a misnamed binding throws then). */
  notifyQueue(): Queue;
  notifications: NotifyOutbox;
  slack: SlackMessages;
  events: EventHub;
  report(error: unknown, info: ErrorInfo): void;
}

export interface NotifySends {
  /**
   * Hands due approver notifications to the queue. A refused send is an `error` event on its
   * run (recoverable: the run stays pending) and a report (recoverable while it is retried);
   * the alarm (armed by the caller: the drive, the alarm) tries again after a backoff.
   */
  notifications(): Promise<void>;
  /** A group with a Slack channel gets its message posted or updated. */
  syncSlack(group: string, items: InboxItem[]): Promise<void>;
  /** A reminder goes to each Slack channel of the request's groups (as a thread reply). */
  slackReminder(runId: string, requestId: string, n: number): Promise<void>;
  /**
   * With email on, the group's members get their approval email for each open request
   * (the consumer sends each member's once: a later change of the request sends nothing).
   */
  syncEmail(group: string, items: InboxItem[]): Promise<void>;
  /** A group with a Teams conversation gets its card posted or replaced in place. */
  syncTeams(group: string, items: InboxItem[]): Promise<void>;
  /** With email on, a reminder email goes to the members of the request's groups who have not voted. */
  emailReminder(runId: string, requestId: string, n: number): Promise<void>;
}

export function notifySends(deps: NotifySendDeps): NotifySends {
  const slackGroups = (groups: readonly string[]) => {
    if (!settings(deps.env).slack) {
      return [];
    }
    const directory = settings(deps.env).approvers(deps.approverGroups);
    return groups.filter((group) => directory.groups.get(group)?.slack);
  };
  return {
    async notifications() {
      for (const { message } of deps.notifications.due(Date.now())) {
        try {
          await deps.notifyQueue().send(message);
          deps.notifications.sent(message.requestId);
        } catch (error) {
          const retried = deps.notifications.failed(message.requestId, Date.now());
          // recoverable: the run itself stays pending and decidable (the stream stays open).
          deps.events.record(message.runId, "error", {
            message: retried
              ? `notification not queued, retrying: ${errorMessage(error)}`
              : `notification given up after ${MAX_NOTIFY_SEND_ATTEMPTS} attempts: ${errorMessage(error)}`,
            requestId: message.requestId,
            recoverable: true,
          });
          deps.report(error, {
            source: "notify",
            runId: message.runId,
            threadId: message.threadId,
            requestId: message.requestId,
            recoverable: retried,
          });
        }
      }
    },

    async syncSlack(group, items) {
      if (slackGroups([group]).length === 0) {
        return;
      }
      await deps.notifyQueue().sendBatch(
        items.map((item) => ({
          body: {
            threadId: item.threadId,
            runId: item.runId,
            requestId: item.requestId,
            slack: { group },
          } satisfies SlackSyncMessage,
        })),
      );
    },

    async syncEmail(group, items) {
      const open = items.filter((item) => item.status === "open");
      if (!settings(deps.env).email || open.length === 0) {
        return;
      }
      await deps.notifyQueue().sendBatch(
        open.map((item) => ({
          body: {
            threadId: item.threadId,
            runId: item.runId,
            requestId: item.requestId,
            email: { group },
          } satisfies EmailSyncMessage,
        })),
      );
    },

    async syncTeams(group, items) {
      if (!settings(deps.env).teams) {
        return;
      }
      if (!settings(deps.env).approvers(deps.approverGroups).groups.get(group)?.teams) {
        return;
      }
      await deps.notifyQueue().sendBatch(
        items.map((item) => ({
          body: {
            threadId: item.threadId,
            runId: item.runId,
            requestId: item.requestId,
            teams: { group },
          } satisfies TeamsSyncMessage,
        })),
      );
    },

    async emailReminder(runId, requestId, n) {
      const item = settings(deps.env).email ? deps.slack.source(runId, requestId)?.item : undefined;
      if (item?.status !== "open") {
        return;
      }
      await deps.notifyQueue().sendBatch(
        item.groups.map((group) => ({
          body: {
            threadId: item.threadId,
            runId,
            requestId,
            email: { group, reminder: n },
          } satisfies EmailSyncMessage,
        })),
      );
    },

    async slackReminder(runId, requestId, n) {
      const item = deps.slack.source(runId, requestId)?.item;
      const groups = item ? slackGroups(item.groups) : [];
      if (!item || groups.length === 0) {
        return;
      }
      await deps.notifyQueue().sendBatch(
        groups.map((group) => ({
          body: {
            threadId: item.threadId,
            runId,
            requestId,
            slack: { group, reminder: n },
          } satisfies SlackSyncMessage,
        })),
      );
    },
  };
}
