/**
 * A run seen as an A2A task (v0.3 JSON shapes, `kind`-tagged parts): the task id is the run
 * id (also in `metadata.runId`), the context is the thread. A suspended run is
 * `input-required` (or `auth-required` for an `authorization` request), its status message
 * carrying the request as a data part, so the caller knows what is asked and who decides.
 */
import type { Request as AgentRequest } from "../../../core/types";
import { childPathOf } from "../../agents/asked-by";
import { isRemoteTaskRequest } from "../../../core/a2a/remote-task";
import { argsHash } from "../../../core/approvers/args-hash";
import { rulesOf } from "../../../core/approvers/rules";
import type { RunView } from "../../protocol";

export type TaskState =
  | "submitted"
  | "working"
  | "input-required"
  | "auth-required"
  | "completed"
  | "failed"
  | "canceled";

export type Part = { kind: "text"; text: string } | { kind: "data"; data: Record<string, unknown> };

export interface A2AMessage {
  kind: "message";
  role: "agent" | "user";
  messageId: string;
  parts: Part[];
  taskId?: string;
  contextId?: string;
}

export interface A2ATask {
  kind: "task";
  id: string;
  contextId: string;
  status: { state: TaskState; message?: A2AMessage; timestamp: string };
  artifacts?: { artifactId: string; name?: string; parts: Part[] }[];
  metadata: { runId: string; agent: string; requestedBy: string | null };
}

/** States after which a task never changes (input-required and auth-required are not). */
export const TERMINAL: ReadonlySet<TaskState> = new Set(["completed", "failed", "canceled"]);

/** Where the caller should stop waiting: a terminal state or one that needs someone to act. */
export const isInterrupted = (state: TaskState): boolean =>
  TERMINAL.has(state) || state === "input-required" || state === "auth-required";

/** `answered`: a request just answered; while the run still shows it, the task is working. */
export function taskState(view: RunView, answered?: string): TaskState {
  if (answered !== undefined && view.status === "pending" && view.pending?.id === answered) {
    return "working";
  }
  // Waiting on a remote agent's task is still working, as far as our caller can tell.
  if (view.status === "pending" && isRemoteTaskRequest(view.pending)) {
    return "working";
  }
  switch (view.status) {
    case "running":
      return view.turns === 0 && view.toolCallCount === 0 ? "submitted" : "working";
    case "pending":
      return view.pending?.kind === "authorization" ? "auth-required" : "input-required";
    case "done":
    case "compensated": // finished, and taken back since (docs/undo.md): the task completed
      return "completed";
    case "incomplete":
    case "failed":
      return "failed";
    case "cancelled":
      return "canceled";
    default: {
      const never: never = view.status;
      throw new Error(`unknown run status ${String(never)}`);
    }
  }
}

/** Who may decide a request: the caller (no rules) or the groups and people the rules name. */
export function deciders(request: AgentRequest): Record<string, unknown> {
  const rules = rulesOf(request);
  if (!rules) {
    return { caller: true };
  }
  return {
    caller: false,
    ...(rules.group === undefined ? {} : { group: rules.group }),
    ...(rules.anyOf === undefined ? {} : { anyOf: rules.anyOf }),
    ...(rules.quorum === undefined ? {} : { quorum: rules.quorum }),
  };
}

/**
 * The request as the status message's data part. `argsHash` is the version of the arguments
 * now up for decision (the run view's, which follows an approver's edit; else computed from
 * the request's own arguments), the value an approval through the webhook carries.
 */
export function requestPart(
  request: AgentRequest & { argsHash?: string },
  expiresAt: string | null,
): Part {
  const data = request.data ?? {};
  const hash =
    request.argsHash ??
    (typeof data.argsHash === "string"
      ? data.argsHash
      : data.args === undefined
        ? undefined
        : argsHash(data.args));
  return {
    kind: "data",
    data: {
      id: request.id,
      kind: request.kind,
      prompt: request.prompt,
      ...(request.url ? { url: request.url } : {}),
      ...(typeof data.tool === "string" ? { tool: data.tool } : {}),
      // A sub-agent's request: the handle of the subtree that asked (`data.path`, either spelling).
      ...(childPathOf(data.path) ? { subagent: childPathOf(data.path) } : {}),
      ...(data.args === undefined ? {} : { args: data.args }),
      ...(hash === undefined ? {} : { argsHash: hash }),
      ...(data.schema === undefined ? {} : { schema: data.schema }),
      expiresAt: request.expiresAt ?? expiresAt,
      decidedBy: deciders(request),
    },
  };
}

function statusMessage(view: RunView, state: TaskState): A2AMessage | undefined {
  const base = {
    kind: "message" as const,
    role: "agent" as const,
    taskId: view.runId,
    contextId: view.threadId,
  };
  if ((state === "input-required" || state === "auth-required") && view.pending) {
    return {
      ...base,
      messageId: `${view.runId}:${view.pending.id}`,
      parts: [
        { kind: "text", text: view.pending.prompt },
        requestPart(view.pending, view.expiresAt),
      ],
    };
  }
  if (state === "failed") {
    const why =
      (view.error ? `${view.error.code}: ${view.error.message}` : undefined) ??
      (view.limit ? `stopped at the ${view.limit} limit` : "the run failed");
    return { ...base, messageId: `${view.runId}:failed`, parts: [{ kind: "text", text: why }] };
  }
  return undefined;
}

/** The artifact of a finished run: its final answer. */
export function answerArtifact(view: RunView) {
  return {
    artifactId: `${view.runId}:answer`,
    name: "answer",
    parts: [{ kind: "text" as const, text: view.text ?? "" }],
  };
}

export function toTask(view: RunView, answered?: string): A2ATask {
  const state = taskState(view, answered);
  const message = statusMessage(view, state);
  return {
    kind: "task",
    id: view.runId,
    contextId: view.threadId,
    status: { state, ...(message ? { message } : {}), timestamp: view.updatedAt },
    ...(state === "completed" ? { artifacts: [answerArtifact(view)] } : {}),
    metadata: { runId: view.runId, agent: view.agent, requestedBy: view.requestedBy },
  };
}
