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
  pollInterval,
  type RemoteTaskData,
  type RemoteTaskOutcome,
  remoteTaskAnswer,
  remoteTaskCanceller,
  remoteTaskData,
  remoteTaskPoller,
} from "../../../src/core/a2a/remote-task";
import type { Tool } from "../../../src/core/types";
import type { RemoteTask } from "../../../src/core/a2a/wire";
import { errorMessage } from "../../../src/core/errors";
import type { Request } from "../../../src/core/types";
import { type AgentDefinition, agentTools } from "../../../src/edge/agent";
import type { ErrorSink } from "../../../src/edge/error-sink";
import type { InboxHooks } from "../../outbox/inbox";
import type { RunRow } from "../../storage/run-store";

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
  /**
   * The tools of a wait on an MCP server's task (`data.mcpTask`): those come from the
   * agent's MCP servers, connected for the poll and closed after it.
   */
  mcpTools?: (
    run: RunRow,
    agent: AgentDefinition,
  ) => Promise<{ tools: Tool[]; close(): Promise<void> }>;
  /** Each poll's outcome, for the run's timeline (`task_polled`). */
  polled?: (run: RunRow, request: Request, task: RemoteTask) => void;
}

/** The tools to poll a wait with (and what to close after), whichever protocol it is. */
async function toolsOf(
  run: RunRow,
  request: Request,
  deps: Pick<RemoteTaskDeps, "agents" | "env" | "mcpTools">,
) {
  const agent = deps.agents.get(run.agent);
  if (!agent) {
    return { tools: [] as Tool[], close: async () => {} };
  }
  if (request.data?.mcpTask !== undefined && deps.mcpTools) {
    return deps.mcpTools(run, agent);
  }
  return { tools: await agentTools(agent, deps.env), close: async () => {} };
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
      return last === undefined ? now : Math.max(now, last + pollInterval(data, last));
    });
  }

  /** Polls every wait that is due; answers those that are over. Never throws. */
  async pollDue(runs: RunRow[], deps: RemoteTaskDeps): Promise<void> {
    const now = deps.now();
    const due = waitingOn(runs).filter(({ request, data }) => {
      const last = this.#lastPolled.get(request.id);
      return last === undefined || now >= last + pollInterval(data, last);
    });
    await Promise.all(due.map((wait) => this.#poll(wait, deps)));
  }

  async #poll({ run, request, data }: Waiting, deps: RemoteTaskDeps): Promise<void> {
    this.#lastPolled.set(request.id, deps.now());
    let task: RemoteTask | undefined;
    try {
      const { tools, close } = await toolsOf(run, request, deps);
      try {
        const poll = remoteTaskPoller(tools.find((tool) => tool.name === data.tool));
        if (!poll) {
          throw new Error(`agent ${run.agent} has no tool ${data.tool} to poll with any more`);
        }
        task = await poll(data.taskId);
      } finally {
        await close();
      }
      deps.polled?.(run, request, task);
    } catch (error) {
      // A failed poll is retried at the next one; past the deadline the wait ends as a timeout.
      deps.report(
        new Error(`polling remote task ${data.taskId} failed: ${errorMessage(error)}`, {
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

/**
 * A cancelled run's waits on remote tasks: each task whose tool can cancel (an MCP task: its
 * `tasks/cancel`) is told, best effort (a failure is reported, the run is cancelled anyway).
 */
export async function cancelRemoteTasks(
  run: RunRow,
  requests: Request[],
  deps: Pick<RemoteTaskDeps, "agents" | "env" | "mcpTools" | "report">,
): Promise<void> {
  for (const request of requests) {
    const data = remoteTaskData(request);
    if (!data) {
      continue;
    }
    try {
      const { tools, close } = await toolsOf(run, request, deps);
      try {
        await remoteTaskCanceller(tools.find((tool) => tool.name === data.tool))?.(data.taskId);
      } finally {
        await close();
      }
    } catch (error) {
      deps.report(
        new Error(`cancelling remote task ${data.taskId} failed: ${errorMessage(error)}`),
        {
          source: "driver",
          runId: run.runId,
          threadId: run.threadId,
          requestId: request.id,
          recoverable: true,
        },
      );
    }
  }
}
