/**
 * The thread object's waits on remote A2A tasks (`remote_task` requests, src/core/a2a/
 * remote-task.ts): nobody decides them. The object's one alarm polls each waiting run's
 * remote task with the tool's own poller every `pollEvery` and, once the task is terminal,
 * asks for input or passed its deadline, records the answer through the ledger (channel
 * `a2a`, no `decidedBy`), which resumes the run like any decision. Between polls the object
 * holds nothing in memory but the last poll times (lost on eviction: the next alarm polls at
 * once), so the wait survives eviction and costs one short request per `pollEvery`.
 */
import {
  isRemoteTaskRequest,
  type RemoteTaskData,
  type RemoteTaskOutcome,
  remoteTaskAnswer,
  remoteTaskData,
  remoteTaskPoller,
} from "../../src/core/a2a/remote-task";
import type { RemoteTask } from "../../src/core/a2a/wire";
import { errorMessage } from "../../src/core/errors";
import type { Request } from "../../src/core/types";
import { type AgentDefinition, agentTools } from "../../src/edge/agent";
import type { ErrorSink } from "../../src/edge/error-sink";
import type { InboxHooks } from "../outbox/inbox";
import type { RunRow } from "../storage/run-store";

/** The inbox hooks for every request but a `remote_task` one: those never reach an inbox or Slack. */
export function withoutRemoteTasks(hooks: InboxHooks): InboxHooks {
  return {
    ...hooks,
    surfaced: (run, request) => {
      if (!isRemoteTaskRequest(request)) {
        hooks.surfaced(run, request);
      }
    },
    settled: (run, request, decision) => {
      if (!isRemoteTaskRequest(request)) {
        hooks.settled(run, request, decision);
      }
    },
  };
}

export interface RemoteTaskDeps {
  agents: ReadonlyMap<string, AgentDefinition>;
  env: unknown;
  now: () => number;
  report: ErrorSink;
  /** Records the answer through the ledger (bypassing the refusal people get). */
  answer: (run: RunRow, request: Request, outcome: RemoteTaskOutcome) => Promise<void>;
}

interface Waiting {
  run: RunRow;
  request: Request;
  data: RemoteTaskData;
}

function waitingOn(runs: RunRow[]): Waiting[] {
  return runs.flatMap((run) => {
    const request = run.status === "pending" ? (run.pending ?? undefined) : undefined;
    const data = remoteTaskData(request);
    return request && data ? [{ run, request, data }] : [];
  });
}

export class RemoteTaskWaits {
  readonly #lastPolled = new Map<string, number>();

  /** When each waiting run's next poll is due (at once for one never polled by this instance). */
  dueTimes(runs: RunRow[], now: number): number[] {
    return waitingOn(runs).map(({ request, data }) => {
      const last = this.#lastPolled.get(request.id);
      return last === undefined ? now : Math.max(now, last + data.pollEvery);
    });
  }

  /** Polls every wait that is due; answers those that are over. Never throws. */
  async pollDue(runs: RunRow[], deps: RemoteTaskDeps): Promise<void> {
    const now = deps.now();
    const due = waitingOn(runs).filter(({ request, data }) => {
      const last = this.#lastPolled.get(request.id);
      return last === undefined || now >= last + data.pollEvery;
    });
    await Promise.all(due.map((wait) => this.#poll(wait, deps)));
  }

  async #poll({ run, request, data }: Waiting, deps: RemoteTaskDeps): Promise<void> {
    this.#lastPolled.set(request.id, deps.now());
    let task: RemoteTask | undefined;
    try {
      const agent = deps.agents.get(run.agent);
      const tools = agent ? await agentTools(agent, deps.env) : [];
      const poll = remoteTaskPoller(tools.find((tool) => tool.name === data.tool));
      if (!poll) {
        throw new Error(`agent ${run.agent} has no A2A tool ${data.tool} to poll with any more`);
      }
      task = await poll(data.taskId);
    } catch (error) {
      // A failed poll is retried at the next one; past the deadline the wait ends as a timeout.
      deps.report(
        new Error(`polling A2A task ${data.taskId} failed: ${errorMessage(error)}`, {
          cause: error,
        }),
        {
          source: "driver",
          runId: run.runId,
          threadId: run.threadId,
          requestId: request.id,
          recoverable: true,
        },
      );
    }
    const seen: RemoteTask = task ?? {
      id: data.taskId,
      ...(data.contextId ? { contextId: data.contextId } : {}),
      state: data.state as RemoteTask["state"],
      statusText: "",
      output: "",
    };
    const outcome = remoteTaskAnswer(data, seen, deps.now());
    if (outcome) {
      this.#lastPolled.delete(request.id);
      await deps.answer(run, request, outcome);
    }
  }
}
