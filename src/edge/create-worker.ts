import type { AgentDefinition } from "./agent";
import type { ApproverGroupsInit } from "./approvals/groups";
import type { EdgeEnv } from "./settings";
import { createApp } from "./http/app";
import { createQueueHandler, type QueueNames } from "./notify/queues";
import { errorSink, type ErrorSink } from "./error-sink";

export interface WorkerOptions {
  agents: AgentDefinition[];
  /** Outbound fetch for notifications, MCP servers and their token endpoints (tests inject one). */
  fetch?: typeof fetch;
  /**
   * Queue names, as in wrangler.toml (Cloudflare queue names are unique per account, so
   * each deployment picks its own). Default `toolnexus-resume`, `toolnexus-notify` and
   * their `-dlq` dead-letter queues.
   */
  queues?: Partial<QueueNames>;
  /** Bound of one notification delivery (default 10 s); slower receivers are retried. */
  notifyTimeoutMs?: number;
  /**
   * How long one delivery may hold its queue batch (default 1 s): a slower one is handed
   * back for redelivery and finished in the background (src/edge/notify/consumer.ts).
   */
  notifyHoldMs?: number;
  /** How long a run waits inline for a decision on an MCP elicitation (default 20 s). */
  elicitationWindowMs?: number;
  /** How long an A2A call polls a working remote task inline before the run waits durably (default 5 s). */
  remoteTaskWindowMs?: number;
  /**
   * How often an open event stream (`GET /v1/runs/:runId/events`, the chat feeds) gets a
   * keep-alive comment and reads the run's log for events it has not sent (default 15 s):
   * after the thread's object was reset with a stream open, that is how long the stream
   * takes to catch up (durable/thread/event-hub.ts).
   */
  eventKeepAliveMs?: number;
  /** Approver groups; a group also in `APPROVER_GROUPS` is this one (docs/architecture.md §6 "Groups"). */
  approverGroups?: ApproverGroupsInit;
  /** Receives every error the service handles itself, with its run and thread (default: logged). */
  onError?: ErrorSink;
}

/** The worker's two handlers, both always there (an `ExportedHandler`'s are optional). */
export interface WorkerHandlers {
  fetch: ExportedHandlerFetchHandler<EdgeEnv>;
  queue: ExportedHandlerQueueHandler<EdgeEnv>;
}

/** The worker's fetch and queue handlers for a list of agents. */
export function createWorker(options: WorkerOptions): WorkerHandlers {
  const names = new Set<string>();
  for (const agent of options.agents) {
    if (names.has(agent.name)) {
      throw new TypeError(`two agents are named ${JSON.stringify(agent.name)}`);
    }
    names.add(agent.name);
  }
  const report = errorSink(options.onError);
  const app = createApp(options.agents, report, {
    ...(options.approverGroups ? { approverGroups: options.approverGroups } : {}),
    // The MCP sign-in callback redeems codes with it (src/edge/oauth/routes.ts).
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const queue = createQueueHandler({ ...options, report });
  return {
    fetch: (request, env, ctx) => app.fetch(request, env, ctx),
    queue: (batch, env, ctx) => queue(batch, env, ctx),
  };
}
