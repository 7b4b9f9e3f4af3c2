/**
 * A remote A2A task waited on durably: where the host can wait (`ctx.suspendAfterMs`, the
 * edge), a call whose remote task is still working after that window suspends with a
 * request of kind `remote_task`, answered by no person. The host polls the task with the
 * tool's own poller (`remoteTaskPoller(tool)`, which knows the endpoint and the headers, so
 * no secret is stored in the request) every `pollEvery`, and answers the request with
 * `remoteTaskAnswer(...)` once the task is terminal, asks for input, or its deadline passed;
 * the re-executed call reads the answer and finishes without polling inline again.
 */
import type { Request, Tool } from "../types";
import type { RemoteTask } from "./wire";

export const REMOTE_TASK_KIND = "remote_task";

/** What a `remote_task` request's data holds (read by the host's poller). */
export interface RemoteTaskData {
  agent: string;
  tool: string;
  taskId: string;
  contextId?: string;
  state: string;
  pollEvery: number;
  /**
   * Set for a backoff (an MCP task): the interval grows with the time waited, a quarter of it,
   * from `pollEvery` up to this. Read from the stored request, so it survives an eviction.
   */
  maxPollEvery?: number;
  /** Epoch ms after which the call times out (its `timeout` from the first send). */
  deadline: number;
  /** Epoch ms of the first send, for the result's `ms`. */
  startedAt: number;
}

/** The answer data the host gives back: the task as last seen, or a timeout. */
export type RemoteTaskOutcome =
  | { timedOut: true; task: RemoteTask }
  | { timedOut?: false; task: RemoteTask };

const POLLER = Symbol.for("toolnexus.a2a.poller");

type Poller = (taskId: string, signal?: AbortSignal) => Promise<RemoteTask>;

export function attachPoller(tool: Tool, poll: Poller): Tool {
  (tool as Tool & { [POLLER]?: Poller })[POLLER] = poll;
  return tool;
}

const CANCELLER = Symbol.for("toolnexus.remote-task.canceller");

type Canceller = (taskId: string) => Promise<void>;

/** How the host cancels one of this tool's remote tasks (the run was cancelled while it waited). */
export function attachCanceller(tool: Tool, cancel: Canceller): Tool {
  (tool as Tool & { [CANCELLER]?: Canceller })[CANCELLER] = cancel;
  return tool;
}

export function remoteTaskCanceller(tool: Tool | undefined): Canceller | undefined {
  return tool ? (tool as Tool & { [CANCELLER]?: Canceller })[CANCELLER] : undefined;
}

/** How long after `last` the next poll is due: `pollEvery`, or the backoff of `maxPollEvery`. */
export function pollInterval(data: RemoteTaskData, now: number): number {
  if (data.maxPollEvery === undefined) {
    return data.pollEvery;
  }
  return Math.min(data.maxPollEvery, Math.max(data.pollEvery, (now - data.startedAt) / 4));
}

/** The GetTask poller of an A2A skill tool, or undefined for any other tool. */
export function remoteTaskPoller(tool: Tool | undefined): Poller | undefined {
  return tool ? (tool as Tool & { [POLLER]?: Poller })[POLLER] : undefined;
}

export const isRemoteTaskRequest = (request: Request | null | undefined): boolean =>
  request?.kind === REMOTE_TASK_KIND;

/** The request's data, checked (undefined when it is not a well-formed remote_task request). */
export function remoteTaskData(request: Request | null | undefined): RemoteTaskData | undefined {
  if (!isRemoteTaskRequest(request)) {
    return undefined;
  }
  const data = request?.data as Partial<RemoteTaskData> | undefined;
  return data &&
    typeof data.tool === "string" &&
    typeof data.taskId === "string" &&
    typeof data.pollEvery === "number" &&
    typeof data.deadline === "number"
    ? (data as RemoteTaskData)
    : undefined;
}

/**
 * Whether the host should answer now, and with what: a terminal task or one that asks for
 * input ends the wait; past the deadline it is a timeout; otherwise keep polling.
 */
export function remoteTaskAnswer(
  data: RemoteTaskData,
  task: RemoteTask,
  now: number,
): RemoteTaskOutcome | undefined {
  const settled =
    ["completed", "failed", "canceled", "rejected"].includes(task.state) ||
    task.state === "input-required" ||
    task.state === "auth-required";
  if (settled) {
    return { task };
  }
  return now >= data.deadline ? { timedOut: true, task } : undefined;
}
