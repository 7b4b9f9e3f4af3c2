/**
 * Everything one thread object works with, built once per object: its stores over the one
 * SQLite database, the event hub, the outboxes and what they send, the drive lock and the
 * inline waiters. Every module of the object takes this one typed context instead of a
 * list of positional parameters.
 */
import type { AgentDefinition } from "../../src/edge/agent";
import { readConfig, type EdgeConfig, type EdgeEnv, settings } from "../../src/edge/settings";
import type { ErrorInfo, ErrorSink } from "../../src/edge/error-sink";
import type { ApproverDirectory, ApproverGroupsInit } from "../../src/edge/approvals/groups";
import { createLazySql } from "../storage/sql";
import { hasSchema, migrate } from "../storage/schema";
import { RunStore } from "../storage/run-store";
import { VoteStore } from "../storage/vote-store";
import { HandleStore } from "../storage/handle-store";
import { InboxOutbox, inboxHooks, type InboxHooks } from "../outbox/inbox";
import { SlackMessages } from "../outbox/slack-messages";
import { EmailSends } from "../outbox/email-sends";
import { TeamsCards } from "../outbox/teams-cards";
import { NotifyOutbox } from "../outbox/notify";
import { NotifyDelivered } from "../outbox/notify-delivered";
import { notifySends, type NotifySends } from "../outbox/notify-sends";
import { EventHub } from "./event-hub";
import { InlineWaiters } from "./drive/elicitation";
import { DriveLock } from "./drive/drive-lock";
import { RemoteTaskWaits, withoutRemoteTasks } from "./remote/remote-tasks";
import { withoutSignIns } from "../tokens/inbox-filter";
import { ReceiptOutbox } from "../outbox/receipts";
import { receiptRecorder } from "../receipts/record";
import { PendingVersionOutbox } from "../outbox/pending-version";
import { ExpiryWarnings } from "../approvers/expiry-warning-store";
import { UndoStore } from "../undo/store";

export interface ThreadObjectOptions {
  agents: AgentDefinition[];
  fetch?: typeof fetch;
  /** How long a run waits inline for a decision on an MCP elicitation before suspending durably. */
  elicitationWindowMs?: number;
  /**
   * How long an A2A call polls a working remote task inline before the run suspends on a
   * `remote_task` request the object's alarm polls (thread/remote/remote-tasks.ts). Default 5 s.
   */
  remoteTaskWindowMs?: number;
  /** See `createEdge({ eventKeepAliveMs })` (src/edge/create-worker.ts). */
  eventKeepAliveMs?: number;
  onError?: ErrorSink;
  /** Approver groups (with `APPROVER_GROUPS`): who may decide, and which groups post to which Slack channel. */
  approverGroups?: ApproverGroupsInit;
}

export interface ThreadContext {
  readonly state: DurableObjectState;
  readonly env: EdgeEnv;
  readonly options: ThreadObjectOptions;
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  readonly report: (error: unknown, info: ErrorInfo) => void;
  readonly store: RunStore;
  readonly votes: VoteStore;
  /** Issue 42: each request's `warnBefore` timer (durable/approvers/expiry-warning-store.ts). */
  readonly warnings: ExpiryWarnings;
  /** The sub-agent trees of this thread's runs (durable/agents/). */
  readonly handles: HandleStore;
  readonly events: EventHub;
  readonly outbox: InboxOutbox;
  readonly slack: SlackMessages;
  /** Which member got which approval email (outbox/email-sends.ts). */
  readonly emails: EmailSends;
  /** The Teams card posted for each request, per conversation (outbox/teams-cards.ts). */
  readonly teamsCards: TeamsCards;
  readonly notifications: NotifyOutbox;
  /** The thread's decision receipts and how far the receipts store has them (outbox/receipts.ts). */
  readonly receipts: ReceiptOutbox;
  /** The thread's pending agent version, for the receipts store's `pendingByVersion`. */
  readonly pendingVersion: PendingVersionOutbox;
  /** The approvals inbox's hooks: each writes outbox rows inside the caller's transaction. */
  readonly inbox: InboxHooks;
  /** What the thread hands to the notify queue (outbox/notify-sends.ts). */
  readonly sends: NotifySends;
  /** Notifications a receiver acknowledged after their batch let go (outbox/notify-delivered.ts). */
  readonly delivered: NotifyDelivered;
  readonly waiters: InlineWaiters;
  /** Runs waiting on a remote A2A task: polled by the alarm, decided by nobody. */
  readonly remoteWaits: RemoteTaskWaits;
  readonly lock: DriveLock;
  /** The thread's undos and their compensation steps (../undo/). */
  readonly undo: UndoStore;
  /** Aborts the running driver (a cancel); a fresh controller is put in its place. */
  readonly abort: { signal(): AbortSignal; abort(reason: Error): void };
  config(): EdgeConfig;
  directory(): ApproverDirectory;
  /** UTF-16 units of text this object has read from storage (an answer built from many crosses RPC packed). */
  textRead(): number;
}

/** The agents and the error sink are the class's; the rest is per object. */
export interface ThreadShared {
  options: ThreadObjectOptions;
  agents: ReadonlyMap<string, AgentDefinition>;
  report: (error: unknown, info: ErrorInfo) => void;
}

export function createThreadContext(
  state: DurableObjectState,
  env: EdgeEnv,
  shared: ThreadShared,
): ThreadContext {
  // Schema on the first write: an id nobody created (GET or decide) leaves no storage.
  const sql = createLazySql(state.storage.sql, { migrate, hasSchema });
  const store = new RunStore(sql);
  const votes = new VoteStore(sql);
  const keepAliveMs = shared.options.eventKeepAliveMs;
  const events = new EventHub(store, keepAliveMs === undefined ? {} : { keepAliveMs });
  const outbox = new InboxOutbox(sql);
  const slack = new SlackMessages(sql);
  const notifications = new NotifyOutbox(sql);
  // Every run of an object has the object's thread id: read once it has one, then kept
  // (the receipt and version outboxes ask at each delivery round; issue 46).
  let knownThreadId: string | undefined;
  const threadId = () => {
    knownThreadId ??= store.runs()[0]?.threadId;
    return knownThreadId;
  };
  const receipts = new ReceiptOutbox(sql, threadId);
  // Every decision inserted appends its receipt in the same transaction (receipts/record.ts).
  store.onDecision = receiptRecorder({ store, votes, outbox: receipts });
  let controller = new AbortController();
  const config = () => readConfig(env);
  return {
    state,
    env,
    textRead: sql.textRead,
    options: shared.options,
    agents: shared.agents,
    report: shared.report,
    store,
    votes,
    warnings: new ExpiryWarnings(sql),
    handles: new HandleStore(sql),
    events,
    outbox,
    slack,
    emails: new EmailSends(sql),
    teamsCards: new TeamsCards(sql),
    notifications,
    receipts,
    pendingVersion: new PendingVersionOutbox(sql, threadId),
    // A `remote_task` request never reaches an inbox or Slack: nobody decides it.
    // Nor does an MCP sign-in: it is the requester's own step (../tokens/inbox-filter.ts).
    inbox: withoutSignIns(withoutRemoteTasks(inboxHooks(outbox, votes))),
    delivered: new NotifyDelivered(state.storage),
    sends: notifySends({
      env,
      approverGroups: shared.options.approverGroups,
      notifyQueue: () => config().bindings.notifyQueue,
      notifications,
      slack,
      events,
      report: shared.report,
    }),
    waiters: new InlineWaiters(),
    remoteWaits: new RemoteTaskWaits(),
    lock: new DriveLock(),
    undo: new UndoStore(sql),
    abort: {
      signal: () => controller.signal,
      abort(reason) {
        controller.abort(reason);
        controller = new AbortController();
      },
    },
    config,
    directory: () => settings(env).approvers(shared.options.approverGroups),
  };
}

/** Asks the `resume` queue to drive this run (the durable path; the alarm is its backstop). */
export async function sendResume(
  t: ThreadContext,
  run: { threadId: string; runId: string },
): Promise<void> {
  await t.config().bindings.resumeQueue.send({ threadId: run.threadId, runId: run.runId });
}

/**
 * `sendResume` in the background, for a run this object drives at once: its answer waits for
 * neither the drive nor the send (a local queue's send alone took 5–70 ms under load). The
 * alarm armed before is what covers a process that dies before the send lands, and a
 * refused send is reported and left to that alarm.
 */
export function sendResumeSoon(t: ThreadContext, run: { threadId: string; runId: string }): void {
  t.state.waitUntil(
    sendResume(t, run).catch((error: unknown) =>
      t.report(new Error("resume queue: send failed, the alarm drives the run", { cause: error }), {
        source: "driver",
        runId: run.runId,
        threadId: run.threadId,
        recoverable: true,
      }),
    ),
  );
}
