/**
 * One Durable Object per thread. Thin: its public methods are its RPC API, each
 * one starts from storage, and the domain logic lives in `driver.ts`,
 * `decisions.ts` and `run-store.ts`.
 */
import { DurableObject } from "cloudflare:workers";
import type { Request as AgentRequest } from "../../src/core/types";
import type { AgentDefinition } from "../../src/edge/agent";
import { ConfigError, readConfig, type EdgeConfig, type EdgeEnv } from "../../src/edge/settings";
import { errorSink, type ErrorSink } from "../../src/edge/error-sink";
import { errorBody } from "../../src/edge/http/errors";
import { errorMessage } from "../../src/core/errors";
import {
  approverDirectory,
  type ApproverDirectory,
  type ApproverGroupsInit,
} from "../../src/edge/approvals/groups";
import { canonicalJson } from "../../src/core/schema/canonical-json";
import { quorumOf, rulesOf } from "../../src/core/approvers/rules";
import { currentArgs, liveApprovals } from "../../src/core/approvers/vote";
import { argsHash } from "../../src/core/approvers/args-hash";
import type {
  ApproverCheck,
  CancelOutcome,
  DriveMessage,
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
import { createLazySql } from "../storage/sql";
import { VoteStore } from "../storage/vote-store";
import { checkEdit } from "../ledger/edit-check";
import { checkApprover, openDescription } from "../ledger/request-view";
import { fireTimers, nextTimerAt, startTimers } from "./reminders";
import { hasSchema, migrate } from "../storage/schema";
import { RunStore, pendingOfRow, type RunRow } from "../storage/run-store";
import { driveOnce, type DriverDeps } from "./driver";
import {
  recordDecisionInInbox,
  decisionView,
  openRequests,
  type DecisionInput,
  type DecisionOutcome,
  type RuledDeps,
} from "../ledger/decisions";
import { toolOf, type EditCheck } from "../ledger/votes";
import { EventHub } from "./event-hub";
import { loggedEvent, runSummary, runView } from "../storage/run-view";
import { closeOpenTurn } from "./close-turn";
import { DEFAULT_ELICITATION_WINDOW_MS, InlineWaiters } from "./elicitation";
import { deliverOutbox, InboxOutbox, inboxHooks, type InboxHooks } from "../outbox/inbox";
import { inboxStub } from "../../src/edge/inbox/rpc";
import type { SlackSource } from "../../src/edge/slack/sync";
import { SlackMessages } from "../outbox/slack-messages";
import { NotifyOutbox } from "../outbox/notify";
import { NotifyDelivered } from "../outbox/notify-delivered";
import { notifySends, type NotifySends } from "../outbox/notify-sends";

/** How long a run may go without a checkpoint before the watchdog alarm retries it. */
export const WATCHDOG_MS = 60_000;
/** A recorded decision whose queue message never arrives is applied by this backstop alarm. */
export const DECISION_BACKSTOP_MS = 10_000;
/**
 * Units of work (turns to a checkpoint, applied decisions) one drive call does before it
 * lets go. Each unit is bounded (maxTurns, one decision per request), so this only
 * matters if stored state keeps producing work; the rest is left to the next queue
 * delivery or the alarm, armed before returning, so one call never holds the object forever.
 */
export const MAX_WORK_PER_DRIVE = 100;
/**
 * Outbox rounds per delivery: rows written while a round is in flight go in the next one;
 * a thread that keeps writing faster than its inboxes accept leaves the rest to the alarm
 * (the outbox's retry time), so one call never loops on a busy thread.
 */
const MAX_OUTBOX_ROUNDS = 10;

export interface ThreadObjectOptions {
  agents: AgentDefinition[];
  fetch?: typeof fetch;
  /** How long a run waits inline for a decision on an MCP elicitation before suspending durably. */
  elicitationWindowMs?: number;
  onError?: ErrorSink;
  /** Approver groups (with `APPROVER_GROUPS`): who may decide, and which groups post to which Slack channel. */
  approverGroups?: ApproverGroupsInit;
}

/** The thread object's class as the application sees it: extend it, export it, bind it as THREADS. */
export type ThreadObjectClass<Env = unknown> = new (
  ctx: DurableObjectState,
  env: Env,
) => DurableObject<Env> & ThreadRpc;

/** The object with its internals (its store and event hub), as tests look inside it. */
export interface ThreadObjectInternals extends ThreadRpc {
  readonly store: RunStore;
  readonly events: EventHub;
  readonly notifications: NotifyOutbox;
  alarm(): Promise<void>;
}

export function createThreadObjectClass(
  options: ThreadObjectOptions,
): new (
  ctx: DurableObjectState,
  env: EdgeEnv,
) => DurableObject<EdgeEnv> & ThreadObjectInternals {
  const agents = new Map(options.agents.map((a) => [a.name, a]));
  const report = errorSink(options.onError);

  return class ThreadObject extends DurableObject<EdgeEnv> implements ThreadRpc {
    readonly store: RunStore;
    readonly votes: VoteStore;
    readonly events: EventHub;
    readonly outbox: InboxOutbox;
    readonly slack: SlackMessages;
    readonly notifications: NotifyOutbox;
    /** The approvals inbox's hooks: each writes outbox rows inside the caller's transaction. */
    readonly #inbox: InboxHooks;
    /** What the thread sends on the notify queue (durable/notify-sends.ts). */
    readonly #sends: NotifySends;
    /** Notifications a receiver acknowledged after their batch let go (durable/outbox/notify-delivered.ts). */
    readonly #delivered: NotifyDelivered;
    #delivering: Promise<void> | undefined;
    #driving: Promise<void> | undefined;
    #parked = false;
    #sleepers: Array<() => void> = [];
    #abort = new AbortController();
    readonly #waiters = new InlineWaiters();

    constructor(ctx: DurableObjectState, env: EdgeEnv) {
      super(ctx, env);
      // Schema on the first write: an id nobody created (GET or decide) leaves no storage.
      const sql = createLazySql(ctx.storage.sql, migrate, hasSchema);
      this.store = new RunStore(sql);
      this.votes = new VoteStore(sql);
      this.events = new EventHub(this.store);
      this.outbox = new InboxOutbox(sql);
      this.slack = new SlackMessages(sql);
      this.notifications = new NotifyOutbox(sql);
      this.#inbox = inboxHooks(this.outbox, this.votes);
      this.#delivered = new NotifyDelivered(ctx.storage);
      this.#sends = notifySends({
        env,
        approverGroups: options.approverGroups,
        notifyQueue: () => this.#config.bindings.notifyQueue,
        notifications: this.notifications,
        slack: this.slack,
        events: this.events,
        report,
      });
    }

    get #config(): EdgeConfig {
      return readConfig(this.env);
    }

    get #directory(): ApproverDirectory {
      return approverDirectory(this.env, options.approverGroups);
    }

    /** Starts a run in this thread; one active run per thread. */
    async start(input: StartInput): Promise<StartOutcome> {
      const agent = agents.get(input.agent);
      if (!agent) {
        return {
          ok: false,
          code: "unknown_agent",
          message: `no agent named ${JSON.stringify(input.agent)}`,
        };
      }
      // A cancelled run with a decision still to apply counts as active too: its call must settle first.
      const active = this.store.activeRun() ?? this.store.runsWithWork()[0];
      if (active) {
        return {
          ok: false,
          code: "thread_busy",
          message: `thread ${input.threadId} has an active run ${active.run_id} (${active.status})`,
        };
      }
      if (this.store.run(input.runId)) {
        return { ok: false, code: "run_exists", message: `run ${input.runId} exists` };
      }
      const now = Date.now();
      this.ctx.storage.transactionSync(() =>
        this.store.insertRun({ ...input, now, systemPrompt: agent.systemPrompt }),
      );
      await this.#armAlarm();
      await this.#config.bindings.resumeQueue.send({
        threadId: input.threadId,
        runId: input.runId,
      } satisfies DriveMessage);
      return { ok: true, run: this.#requireView(input.runId) };
    }

    async getRun(
      runId: string,
      options: { transcript?: boolean } = {},
    ): Promise<RunView | undefined> {
      return this.#view(runId, options.transcript ?? false);
    }

    /** Records an approver's decision; the resume queue (or the backstop alarm) applies it. */
    async decide(input: DecisionInput): Promise<DecisionOutcome> {
      let outcome: DecisionOutcome;
      try {
        outcome = await this.#record(input);
      } catch (error) {
        if (error instanceof ConfigError) {
          return { ok: false, status: 500, code: "config_error", message: error.message };
        }
        throw error;
      }
      if (outcome.ok && outcome.status === 202) {
        // Before answering, so whoever decided (the inbox page, say) reads the updated inbox.
        await this.#deliverOutbox();
      }
      if (outcome.ok && outcome.status === 202 && outcome.decision) {
        // A driver waiting inline for this request (an MCP elicitation) takes it directly.
        if (this.#waiters.deliver(input.requestId, outcome.decision.answer)) {
          return outcome;
        }
        const run = this.store.requireRun(input.runId);
        await this.#armAlarm(Date.now() + DECISION_BACKSTOP_MS);
        await this.#config.bindings.resumeQueue.send({
          threadId: run.thread_id,
          runId: run.run_id,
        } satisfies DriveMessage);
      }
      return outcome;
    }

    /**
     * Records in one synchronous pass; an edit is first checked against the tool (async,
     * nothing written), then the pass runs again on fresh state with the edit allowed.
     */
    async #record(input: DecisionInput): Promise<DecisionOutcome> {
      const deps = { votes: this.votes, directory: this.#directory };
      const first = this.#recordOnce(input, deps);
      if (!("checkEdit" in first)) {
        return first;
      }
      const { request, args } = first.checkEdit;
      const agent = agents.get(this.store.run(input.runId)?.agent ?? "");
      const refused = await checkEdit(
        agent,
        this.env as unknown as Record<string, unknown>,
        request,
        args,
      );
      if (refused) {
        return refused;
      }
      const checked = canonicalJson(args);
      const second = this.#recordOnce(input, { ...deps, checked });
      if ("checkEdit" in second) {
        throw new Error("an edit checked once asked to be checked again");
      }
      return second;
    }

    /** One synchronous pass of the ledger; the inbox's outbox row commits with it. */
    #recordOnce(input: DecisionInput, deps: RuledDeps): DecisionOutcome | EditCheck {
      return this.ctx.storage.transactionSync(() =>
        recordDecisionInInbox(this.store, this.outbox, input, Date.now(), deps),
      );
    }

    /** What the approval page shows for one request, or why it cannot. */
    async describeRequest(runId: string, requestId: string): Promise<RequestDescription> {
      const run = this.store.run(runId);
      if (!run) {
        return { state: "unknown" as const };
      }
      const decided = this.store.decision(requestId);
      if (decided && decided.run_id === runId) {
        return { state: "decided" as const, decision: decisionView(decided) };
      }
      const request = openRequests(this.store, run).find((r) => r.id === requestId);
      if (!request) {
        return {
          state:
            run.status === "pending" || run.status === "running"
              ? ("unknown" as const)
              : ("closed" as const),
          status: run.status,
        };
      }
      return openDescription(this.votes, run, request);
    }

    /** Whether `approver` may decide the request now (for a personal approval link). */
    async checkApprover(
      runId: string,
      requestId: string,
      approver: string,
    ): Promise<ApproverCheck> {
      try {
        return checkApprover(
          { store: this.store, votes: this.votes, directory: this.#directory },
          runId,
          requestId,
          approver,
          Date.now(),
        );
      } catch (error) {
        if (error instanceof ConfigError) {
          return { ok: false, status: 500, code: "config_error", message: error.message };
        }
        throw error;
      }
    }

    async runs(): Promise<RunSummary[]> {
      return this.store.runs().map(runSummary);
    }

    async runEvents(runId: string, afterId = 0): Promise<LoggedEvent[]> {
      return this.store.eventsAfter(runId, afterId).map(loggedEvent);
    }

    async openRequests(runId: string): Promise<AgentRequest[]> {
      const run = this.store.run(runId);
      return run ? openRequests(this.store, run) : [];
    }

    async cancel(runId: string): Promise<CancelOutcome> {
      const run = this.store.run(runId);
      if (!run) {
        return { ok: false, code: "run_not_found", message: `no run ${runId}` };
      }
      if (run.status !== "running" && run.status !== "pending") {
        return {
          ok: false,
          code: "run_not_active",
          message: `run ${runId} is already ${run.status}`,
        };
      }
      const now = Date.now();
      this.ctx.storage.transactionSync(() => {
        const request = pendingOfRow(run);
        const decided = request && this.store.decision(request.id);
        this.store.update(runId, { status: "cancelled", cancelled_at: now, expires_at: null }, now);
        // A decision recorded before the cancel is applied first; its driver records `done` afterwards,
        // so `done` stays the last event of the log.
        if (!(decided && decided.applied_at === null)) {
          closeOpenTurn(this.store, runId);
          this.events.record(runId, "done", { status: "cancelled" });
        }
        this.outbox.closeRun(runId, "run cancelled", now);
      });
      this.#deliverSoon();
      this.#abort.abort(new Error("run cancelled"));
      this.#abort = new AbortController();
      // A decision recorded before the cancel still applies to its call.
      await this.#config.bindings.resumeQueue.send({
        threadId: run.thread_id,
        runId,
      } satisfies DriveMessage);
      return { ok: true, run: this.#requireView(runId) };
    }

    /**
     * The queue consumer's entry point. At most one driver runs; a second delivery waits
     * for it and re-checks. A driver waiting inline for an MCP elicitation decision is
     * "parked": callers return instead of holding a queue consumer for the whole window
     * (the object keeps the driver alive with waitUntil; the alarm watchdog backs it up).
     */
    async drive(runId?: string): Promise<void> {
      while (this.#driving) {
        if (this.#parked) {
          return;
        }
        await this.#settled();
      }
      const driving = this.#driveAll(runId);
      this.#driving = driving
        .catch(() => {}) // reported to this caller below; later callers re-check storage
        .finally(() => {
          this.#driving = undefined;
          this.#parked = false;
          this.#wake();
        });
      this.ctx.waitUntil(this.#driving);
      // A failure reaches the queue consumer, which retries the message.
      await Promise.race([driving, this.#settled()]);
    }

    /** Resolves when the current driver finishes or parks. */
    #settled(): Promise<void> {
      return new Promise((resolve) => this.#sleepers.push(resolve));
    }

    #wake(): void {
      const sleepers = this.#sleepers;
      this.#sleepers = [];
      for (const wake of sleepers) {
        wake();
      }
    }

    override async alarm(): Promise<void> {
      await this.drive();
      await fireTimers({
        store: this.store,
        votes: this.votes,
        now: () => Date.now(),
        record: (runId, type, data) => this.events.record(runId, type, data),
        notify: async (message) => {
          await this.#config.bindings.notifyQueue.send(message);
        },
        escalatedTo: (run, requestId, to) => {
          const request = openRequests(this.store, run).find((r) => r.id === requestId);
          if (request) {
            const votes = this.votes.votes(requestId);
            const needed = quorumOf(rulesOf(request));
            this.outbox.record(
              run,
              request,
              { event: "escalated", escalatedTo: to, votes, needed },
              Date.now(),
            );
          }
        },
        reminded: (run, requestId, n) => this.#sends.slackReminder(run.run_id, requestId, n),
      });
      await this.#deliverOutbox();
      await this.#sends.notifications();
      await this.#armAlarm();
    }

    /**
     * Rules that depend on the arguments are only known once a request surfaces: one that
     * names a group nobody defined could never be decided. The request stays pending (a
     * fixed APPROVER_GROUPS makes it decidable), and the run says why at once, as an
     * `error` event and a report, instead of at the first vote.
     */
    #checkApproverGroups(run: RunRow, request: AgentRequest): void {
      const rules = rulesOf(request);
      if (!rules) {
        return;
      }
      try {
        this.#directory.checkRules(rules, { agent: run.agent, tool: toolOf(request) });
      } catch (error) {
        const message = `nobody can decide request ${request.id} yet: ${errorMessage(error)}`;
        // recoverable: the run stays pending (and the event stream open) until the config is fixed.
        this.events.record(run.run_id, "error", {
          message,
          requestId: request.id,
          recoverable: true,
        });
        report(new Error(message, { cause: error }), {
          source: "driver",
          runId: run.run_id,
          threadId: run.thread_id,
          requestId: request.id,
          recoverable: false,
        });
      }
    }

    /** What the Slack consumer shows for a request: its latest inbox item and its messages. */
    async slackSource(runId: string, requestId: string): Promise<SlackSource | undefined> {
      return this.slack.source(runId, requestId);
    }

    async slackClaim(runId: string, requestId: string, channel: string): Promise<boolean> {
      return (
        this.store.run(runId) !== undefined && this.slack.claim(requestId, channel, Date.now())
      );
    }

    async slackPosted(
      runId: string,
      requestId: string,
      channel: string,
      ts: string,
    ): Promise<void> {
      if (this.store.run(runId)) {
        this.slack.posted(requestId, channel, ts);
      }
    }

    async slackRelease(runId: string, requestId: string, channel: string): Promise<void> {
      if (this.store.run(runId)) {
        this.slack.release(requestId, channel);
      }
    }

    /** Delivers the outbox now, in the background; the alarm retries whatever this misses. */
    #deliverSoon(): void {
      this.ctx.waitUntil(this.#deliverOutbox());
    }

    /** One delivery at a time; rows written meanwhile go in the next round. Never throws. */
    async #deliverOutbox(): Promise<void> {
      while (this.#delivering) {
        await this.#delivering;
      }
      const round = (async () => {
        try {
          let sent = 0;
          for (let pass = 0; pass < MAX_OUTBOX_ROUNDS; pass += 1) {
            const { delivered, failed } = await deliverOutbox(
              this.outbox,
              async (group, items) => {
                // Slack first: if the inbox then fails, the retry sends both again (both idempotent).
                await this.#sends.syncSlack(group, items);
                await inboxStub(this.env, group).apply(items);
              },
              (fn) => this.ctx.storage.transactionSync(fn),
              (group, items, error) =>
                report(
                  new Error(`inbox ${group}: delivery failed, retried by the alarm`, {
                    cause: error,
                  }),
                  {
                    source: "inbox",
                    threadId: items[0]?.threadId,
                    runId: items[0]?.runId,
                    recoverable: true,
                  },
                ),
            );
            sent += delivered;
            if (failed > 0 || delivered === 0) {
              break;
            }
          }
          if (sent > 0) {
            await this.#armAlarm(); // the outbox's retry time is no longer needed
          }
        } catch (error) {
          // The object is going away (or storage failed): the alarm retries from storage.
          report(error, { source: "inbox", recoverable: true });
        }
      })();
      this.#delivering = round.finally(() => {
        this.#delivering = undefined;
      });
      await this.#delivering;
    }

    /** Server-Sent Events for one run: replay after Last-Event-ID, then live until the run ends. */
    override async fetch(input: string | Request, init?: RequestInit): Promise<Response> {
      const request = new Request(input, init);
      const url = new URL(request.url);
      const runId = url.searchParams.get("runId") ?? "";
      if (!this.store.run(runId)) {
        return Response.json(errorBody("run_not_found", `no run ${runId}`), { status: 404 });
      }
      const after = Number.parseInt(
        request.headers.get("last-event-id") ?? url.searchParams.get("after") ?? "0",
        10,
      );
      return this.events.stream(runId, Number.isFinite(after) && after > 0 ? after : 0, () =>
        this.#isFinished(runId),
      );
    }

    /** The notification body for a pending request (built when sent, so it is never stale). */
    async notification(message: NotifyMessage): Promise<NotificationSource | undefined> {
      const run = this.store.run(message.runId);
      const request = run && openRequests(this.store, run).find((r) => r.id === message.requestId);
      if (!run || !request || this.store.decision(request.id)) {
        return undefined;
      }
      if (await this.#delivered.has(message)) {
        return undefined; // a late attempt got through after its batch handed it back
      }
      return {
        run: {
          runId: run.run_id,
          threadId: run.thread_id,
          agent: run.agent,
          callbackUrl: run.callback_url,
          publicUrl: run.public_url,
          metadata: run.metadata === null ? null : JSON.parse(run.metadata),
          requestedBy: run.requested_by ?? null,
        },
        // The version of the arguments now up for approval: what the approver's decision carries.
        request: {
          ...request,
          argsHash: argsHash(
            currentArgs(request, rulesOf(request) ? this.votes.votes(request.id) : []),
          ),
        },
        expiresAt: run.expires_at,
        ...(rulesOf(request)
          ? {
              votes: {
                votes: liveApprovals(this.votes.votes(request.id)),
                needed: quorumOf(rulesOf(request)),
              },
            }
          : {}),
      };
    }

    /** Records that a receiver acknowledged a notification (a late attempt, after its batch). */
    async notificationDelivered(message: NotifyMessage): Promise<void> {
      if (this.store.run(message.runId)) {
        await this.#delivered.record(message);
      }
    }

    /**
     * Records that a notification could not be delivered (from the dead-letter consumer);
     * false when a late attempt got through after all, and nothing is recorded.
     */
    async notificationFailed(message: NotifyMessage, reason: string): Promise<boolean> {
      if (await this.#delivered.has(message)) {
        return false;
      }
      if (this.store.run(message.runId)) {
        this.events.record(message.runId, "error", {
          message: `notification for ${message.requestId} failed: ${reason}`,
          requestId: message.requestId,
          recoverable: true,
        });
      }
      return true;
    }

    /** A configuration mistake the worker found while handling this run's messages. */
    async configProblem(runId: string, message: string): Promise<void> {
      if (this.store.run(runId)) {
        this.events.record(runId, "error", { code: "config_error", message, recoverable: true });
      }
    }

    #isFinished(runId: string): boolean {
      const status = this.store.run(runId)?.status;
      return (
        status === "done" ||
        status === "incomplete" ||
        status === "failed" ||
        status === "cancelled"
      );
    }

    #view(runId: string, transcript: boolean): RunView | undefined {
      const run = this.store.run(runId);
      return run && runView(this.store, this.votes, run, transcript);
    }

    /** The view of a run this object just wrote (created, cancelled): a miss is a bug. */
    #requireView(runId: string): RunView {
      return runView(this.store, this.votes, this.store.requireRun(runId), false);
    }

    async #driveAll(only?: string): Promise<void> {
      const deps = this.#deps();
      let work = 0;
      for (;;) {
        const runs = this.store.runsWithWork().filter((r) => !only || r.run_id === only);
        let progressed = false;
        for (const run of runs) {
          await this.#armAlarm(Date.now() + WATCHDOG_MS);
          if (await this.#driveRun(deps, run)) {
            progressed = true;
            work += 1;
          }
        }
        if (!progressed) {
          break;
        }
        if (work >= MAX_WORK_PER_DRIVE) {
          report(new Error(`drive stopped after ${work} units of work; the alarm carries on`), {
            source: "driver",
            threadId: runs[0]?.thread_id,
            recoverable: true,
          });
          break;
        }
      }
      this.#deliverSoon();
      await this.#armAlarm();
    }

    /**
     * One unit of work for one run. A failure the driver could not turn into a failed run
     * (storage, a queue send) is recorded as a recoverable `error` event, reported, and
     * rethrown, so the queue redelivers and the watchdog alarm (armed above) retries it.
     */
    async #driveRun(deps: DriverDeps, run: RunRow): Promise<boolean> {
      try {
        return await driveOnce(deps, run.run_id, this.#abort.signal);
      } catch (error) {
        const ids = { runId: run.run_id, threadId: run.thread_id };
        try {
          this.events.record(run.run_id, "error", {
            message: `driver failed, retrying: ${errorMessage(error)}`,
            recoverable: true,
          });
        } finally {
          report(error, { source: "driver", ...ids, recoverable: true });
        }
        throw error;
      }
    }

    #deps(): DriverDeps {
      return {
        store: this.store,
        agents,
        config: this.#config,
        env: this.env as unknown as Record<string, unknown>,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        now: () => Date.now(),
        transaction: (fn) => this.ctx.storage.transactionSync(fn),
        record: (runId, type, data) => this.events.record(runId, type, data),
        report,
        halted: async (run: RunRow, request: AgentRequest) => {
          startTimers(this.votes, run, request, Date.now());
          this.#checkApproverGroups(run, request);
          if (!run.callback_url) {
            return;
          }
          // Before any await: stored in the same batch as the suspension.
          const message: NotifyMessage = {
            threadId: run.thread_id,
            runId: run.run_id,
            requestId: request.id,
          };
          this.notifications.add(message, Date.now());
          await this.#sends.notifications();
        },
        waiters: this.#waiters,
        parked: (waiting) => {
          this.#parked = waiting;
          if (waiting) {
            this.#wake();
          }
        },
        elicitationWindowMs: options.elicitationWindowMs ?? DEFAULT_ELICITATION_WINDOW_MS,
        inbox: this.#inbox,
      };
    }

    /** One alarm serves every timer: the earliest of the watchdog, the backstop and request expiries. */
    async #armAlarm(atLeast?: number): Promise<void> {
      const times: number[] = atLeast === undefined ? [] : [atLeast];
      const outboxRetry = this.outbox.retryAt(Date.now());
      if (outboxRetry !== undefined) {
        times.push(outboxRetry);
      }
      const notifyRetry = this.notifications.retryAt();
      if (notifyRetry !== undefined) {
        times.push(notifyRetry);
      }
      const timer = nextTimerAt(this.votes);
      if (timer !== undefined) {
        times.push(timer);
      }
      for (const run of this.store.runsWithWork()) {
        if (run.status === "running") {
          times.push(Date.now() + WATCHDOG_MS);
        }
        if (run.status === "pending" && run.expires_at !== null) {
          times.push(run.expires_at);
        }
        if (pendingOfRow(run) && this.#hasUnapplied(run)) {
          times.push(Date.now() + DECISION_BACKSTOP_MS);
        }
      }
      if (times.length === 0) {
        return this.ctx.storage.deleteAlarm();
      }
      const next = Math.min(...times);
      const current = await this.ctx.storage.getAlarm();
      if (current === null || current > next || atLeast === undefined) {
        await this.ctx.storage.setAlarm(next);
      }
    }

    #hasUnapplied(run: RunRow): boolean {
      const request = pendingOfRow(run);
      const decision = request && this.store.decision(request.id);
      return Boolean(decision && decision.applied_at === null);
    }
  };
}
