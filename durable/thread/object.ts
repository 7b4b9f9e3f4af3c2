/**
 * One Durable Object per thread: its RPC surface. Each method validates, delegates and
 * returns; the work lives in the modules beside it (docs/architecture.md §1): runs.ts
 * (start, cancel), decide.ts (a decision from any channel), drive/index.ts (the driver under the
 * drive lock), on-alarm.ts and alarms.ts (the one alarm), the ledger (../ledger/), the
 * outboxes and their delivery (../outbox/), and storage (../storage/).
 */
import { DurableObject } from "cloudflare:workers";
import type { Request as AgentRequest } from "../../src/core/types";
import type { EdgeEnv } from "../../src/edge/settings";
import { errorSink } from "../../src/edge/error-sink";
import { packIfLarge, type Packable } from "../../src/edge/packed";
import type {
  ApproverCheck,
  CancelOutcome,
  DecisionInput,
  DecisionOutcome,
  LoggedEvent,
  NotificationSource,
  NotifyMessage,
  RequestDescription,
  RunSummary,
  RunView,
  StartInput,
  StartOutcome,
  ThreadRpc,
} from "../../src/edge/protocol";
import type { SlackSource } from "../../src/edge/slack/sync";
import type { EmailSendKey, EmailSource } from "../../src/edge/email/thread";
import type { TeamsSource } from "../../src/edge/teams/sync";
import type { RunStore } from "../storage/run-store";
import type { VoteStore } from "../storage/vote-store";
import { loggedEvent, runSummary } from "../storage/run-view";
import { runViewWithTree } from "../agents/tree-view";
import { openRequests } from "../storage/open-requests";
import { checkApprover, describeRequest } from "../ledger/request-view";
import type { InboxOutbox } from "../outbox/inbox";
import type { SlackMessages } from "../outbox/slack-messages";
import type { NotifyOutbox } from "../outbox/notify";
import { OutboxDelivery } from "../outbox/delivery";
import { notificationFailed, notificationSource } from "../outbox/notification-source";
import type { EventHub } from "./event-hub";
import { createThreadContext, type ThreadContext, type ThreadObjectOptions } from "./context";
import { callbackUrl, cancelRun, startRun, threadFetch } from "./runs";
import { decide } from "./decide";
import { runTimeline } from "./timeline";
import { drive } from "./drive";
import { onAlarm } from "./on-alarm";
import { configErrorOutcome } from "./config-error";
import { runReceipts } from "../receipts/run-receipts";
import { undoRun } from "../undo/start";
import type { UndoInput, UndoOutcome } from "../../src/edge/undo/types";

export type { ThreadObjectOptions } from "./context";

/** The thread object's class as the application sees it: extend it, export it, bind it as THREADS. */
export type ThreadObjectClass<Env = unknown> = new (
  ctx: DurableObjectState,
  env: Env,
) => DurableObject<Env> & ThreadRpc;

/** The object with its internals (its stores and event hub), as tests look inside it. */
export interface ThreadObjectInternals extends ThreadRpc {
  readonly store: RunStore;
  readonly votes: VoteStore;
  readonly events: EventHub;
  readonly outbox: InboxOutbox;
  readonly slack: SlackMessages;
  readonly notifications: NotifyOutbox;
  alarm(): Promise<void>;
}

export function createThreadObjectClass(
  options: ThreadObjectOptions,
): new (
  ctx: DurableObjectState,
  env: EdgeEnv,
) => DurableObject<EdgeEnv> & ThreadObjectInternals {
  const shared = {
    options,
    agents: new Map(options.agents.map((a) => [a.name, a])),
    report: errorSink(options.onError),
  };

  return class ThreadObject extends DurableObject<EdgeEnv> implements ThreadObjectInternals {
    readonly #t: ThreadContext;
    readonly #delivery: OutboxDelivery;
    readonly store: RunStore;
    readonly votes: VoteStore;
    readonly events: EventHub;
    readonly outbox: InboxOutbox;
    readonly slack: SlackMessages;
    readonly notifications: NotifyOutbox;

    constructor(ctx: DurableObjectState, env: EdgeEnv) {
      super(ctx, env);
      const t = createThreadContext(ctx, env, shared);
      this.#t = t;
      this.#delivery = new OutboxDelivery(t);
      ({
        store: this.store,
        votes: this.votes,
        events: this.events,
        outbox: this.outbox,
        slack: this.slack,
        notifications: this.notifications,
      } = t);
    }

    /** Starts a run in this thread; one active run per thread. */
    async start(input: StartInput): Promise<StartOutcome> {
      return startRun(this.#t, this.#delivery, input);
    }

    async getRun(
      runId: string,
      view: { transcript?: boolean } = {},
    ): Promise<Packable<RunView> | undefined> {
      const before = this.#t.textRead();
      const run = this.store.run(runId);
      const answer = run && runViewWithTree(this.#t, run, view.transcript ?? false);
      return answer && packIfLarge(this.#t.textRead() - before, answer);
    }

    async runReceipts(runId: string): Promise<string[] | undefined> {
      return runReceipts(this.#t, runId);
    }

    /** Records a decision from any channel and applies it at once (the resume queue and the alarm are its backstops). */
    async decide(input: DecisionInput): Promise<DecisionOutcome> {
      return decide(this.#t, this.#delivery, input);
    }

    /** What the approval page shows for one request, or why it cannot. */
    async describeRequest(runId: string, requestId: string): Promise<RequestDescription> {
      return describeRequest(this.#t, runId, requestId);
    }

    /** Whether `approver` may decide the request now (for a personal approval link). */
    async checkApprover(
      runId: string,
      requestId: string,
      approver: string,
    ): Promise<ApproverCheck> {
      const deps = { store: this.store, votes: this.votes, directory: this.#t.directory() };
      return configErrorOutcome(() =>
        checkApprover(deps, { runId, requestId, approver, now: Date.now() }),
      );
    }

    async runs(): Promise<RunSummary[]> {
      return this.store.runs().map(runSummary);
    }

    async runEvents(runId: string, afterId = 0): Promise<Packable<LoggedEvent[]>> {
      const before = this.#t.textRead();
      const events = this.store.eventsAfter(runId, afterId).map(loggedEvent);
      return packIfLarge(this.#t.textRead() - before, events);
    }

    async timeline(runId: string) {
      const before = this.#t.textRead();
      const timeline = runTimeline(this.#t, runId);
      return timeline && packIfLarge(this.#t.textRead() - before, timeline);
    }

    async openRequests(runId: string): Promise<AgentRequest[]> {
      const run = this.store.run(runId);
      return run ? openRequests(this.store, run) : [];
    }

    /** The run's callbackUrl, read or replaced (A2A push-notification config). */
    async callbackUrl(
      runId: string,
      change?: { url: string | null },
    ): Promise<{ callbackUrl: string | null } | undefined> {
      return callbackUrl(this.#t, runId, change);
    }

    async cancel(runId: string): Promise<CancelOutcome> {
      return cancelRun(this.#t, this.#delivery, runId);
    }

    /** Compensates a finished run: each step recorded before and after (../undo/). */
    async undo(input: UndoInput): Promise<UndoOutcome> {
      return undoRun(this.#t, this.#delivery, input);
    }

    /**
     * The queue consumer's entry point. At most one driver runs; a second delivery waits
     * for it and re-checks (drive/drive-lock.ts).
     */
    async drive(runId?: string): Promise<void> {
      return drive(this.#t, this.#delivery, runId);
    }

    override async alarm(): Promise<void> {
      return onAlarm(this.#t, this.#delivery);
    }

    /** Server-Sent Events for one run (replay after Last-Event-ID, then live), or a call's whole output. */
    override async fetch(input: string | Request, init?: RequestInit): Promise<Response> {
      return threadFetch(this.#t, new Request(input, init));
    }

    /** The notification body for a pending request (built when sent, so it is never stale). */
    async notification(message: NotifyMessage): Promise<NotificationSource | undefined> {
      return notificationSource(this.#t, message);
    }

    /** Records that a receiver acknowledged a notification (a late attempt, after its batch). */
    async notificationDelivered(message: NotifyMessage): Promise<void> {
      if (this.store.run(message.runId)) {
        await this.#t.delivered.record(message);
      }
    }

    /**
     * Records that a notification could not be delivered (from the dead-letter consumer);
     * false when a late attempt got through after all, and nothing is recorded.
     */
    async notificationFailed(message: NotifyMessage, reason: string): Promise<boolean> {
      return notificationFailed(this.#t, message, reason);
    }

    /** A configuration mistake the worker found while handling this run's messages. */
    async configProblem(runId: string, message: string): Promise<void> {
      if (this.store.run(runId)) {
        this.events.record(runId, "error", { code: "config_error", message, recoverable: true });
      }
    }

    // Slack (outbox/slack-messages.ts): the notify consumer reads the request's latest inbox
    // item and which messages were posted, claims the first post, and records its ts.

    async slackSource(runId: string, requestId: string): Promise<SlackSource | undefined> {
      return this.slack.source(runId, requestId);
    }

    async slackClaim(runId: string, requestId: string, channel: string): Promise<boolean> {
      return (
        this.store.run(runId) !== undefined && this.slack.claim(requestId, channel, Date.now())
      );
    }

    async slackPosted(
      { runId, requestId }: { runId: string; requestId: string },
      { channel, ts }: { channel: string; ts: string },
    ) {
      if (this.store.run(runId)) {
        this.slack.posted(requestId, channel, ts);
      }
    }

    async slackRelease(runId: string, requestId: string, channel: string): Promise<void> {
      if (this.store.run(runId)) {
        this.slack.release(requestId, channel);
      }
    }

    // Email (outbox/email-sends.ts): the notify consumer reads the request's latest inbox item,
    // claims the members it sends to, and marks each sent (or releases it when the send failed).

    async emailSource(runId: string, requestId: string): Promise<EmailSource | undefined> {
      const run = this.store.run(runId);
      return run && this.#t.emails.source(run, requestId);
    }

    async emailClaim(key: EmailSendKey, members: string[]): Promise<string[]> {
      if (!this.store.run(key.runId)) {
        return [];
      }
      return this.#t.emails.claim(key, members, Date.now());
    }

    async emailSent(key: EmailSendKey, member: string): Promise<void> {
      if (this.store.run(key.runId)) {
        this.#t.emails.sent(key, member);
      }
    }

    async emailRelease(key: EmailSendKey, member: string): Promise<void> {
      if (this.store.run(key.runId)) {
        this.#t.emails.release(key, member);
      }
    }

    // Teams (outbox/teams-cards.ts): as Slack's, a card per request and conversation.

    async teamsSource(runId: string, requestId: string): Promise<TeamsSource | undefined> {
      return this.#t.teamsCards.source(runId, requestId);
    }

    async teamsClaim(runId: string, requestId: string, conversation: string): Promise<boolean> {
      return (
        this.store.run(runId) !== undefined &&
        this.#t.teamsCards.claim(requestId, conversation, Date.now())
      );
    }

    async teamsPosted(
      { runId, requestId }: { runId: string; requestId: string },
      { conversation, activityId }: { conversation: string; activityId: string },
    ): Promise<void> {
      if (this.store.run(runId)) {
        this.#t.teamsCards.posted(requestId, conversation, activityId);
      }
    }

    async teamsRelease(runId: string, requestId: string, conversation: string): Promise<void> {
      if (this.store.run(runId)) {
        this.#t.teamsCards.release(requestId, conversation);
      }
    }
  };
}
