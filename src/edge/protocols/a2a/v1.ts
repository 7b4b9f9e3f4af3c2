/**
 * A2A 1.0's JSON for the same tasks (the shapes `@a2a-js/sdk` 1.3's default client reads):
 * `TASK_STATE_*` states, `ROLE_*` roles, untagged parts (`{ text }`, `{ data }`), results
 * wrapped by kind (`{ task }`, `{ statusUpdate }`, `{ artifactUpdate }`), flat push configs.
 * A request gets these when it says it speaks 1.0: the `A2A-Version: 1.x` header the SDK
 * sends, or a message with a 1.0 role. Everyone else (v0.3 clients, the SPEC's literal
 * `SendMessage` callers) gets the v0.3 shapes of task.ts.
 */
import type { A2AMessage, A2ATask, Part } from "./task";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Does this request ask for A2A 1.0 shapes? */
export function wantsV1(headers: Headers, params: Record<string, unknown>): boolean {
  const version = headers.get("a2a-version")?.trim() ?? "";
  if (/^1(\.|$)/.test(version)) {
    return true;
  }
  const message = params.message;
  return isRecord(message) && typeof message.role === "string" && message.role.startsWith("ROLE_");
}

const v1State = (state: string) => `TASK_STATE_${state.toUpperCase().replace(/-/g, "_")}`;

const v1Parts = (parts: Part[]) =>
  parts.map((part) => (part.kind === "text" ? { text: part.text } : { data: part.data }));

function v1Message(message: A2AMessage) {
  return {
    messageId: message.messageId,
    role: message.role === "agent" ? "ROLE_AGENT" : "ROLE_USER",
    parts: v1Parts(message.parts),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
  };
}

function v1Status(status: A2ATask["status"]) {
  return {
    state: v1State(status.state),
    ...(status.message ? { message: v1Message(status.message) } : {}),
    timestamp: status.timestamp,
  };
}

function v1Artifact(artifact: NonNullable<A2ATask["artifacts"]>[number]) {
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name ? { name: artifact.name } : {}),
    parts: v1Parts(artifact.parts),
  };
}

export function v1Task(task: A2ATask) {
  return {
    id: task.id,
    contextId: task.contextId,
    status: v1Status(task.status),
    artifacts: (task.artifacts ?? []).map(v1Artifact),
    metadata: task.metadata,
  };
}

/** A stream event (or a unary result) of task.ts / stream.ts in 1.0's wrapped form. */
export function v1Event(event: unknown): unknown {
  if (!isRecord(event)) {
    return event;
  }
  switch (event.kind) {
    case "task":
      return { task: v1Task(event as unknown as A2ATask) };
    case "status-update":
      return {
        statusUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          status: v1Status(event.status as A2ATask["status"]),
        },
      };
    case "artifact-update":
      return {
        artifactUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: v1Artifact(event.artifact as NonNullable<A2ATask["artifacts"]>[number]),
          append: false,
          lastChunk: event.lastChunk === true,
        },
      };
    default:
      return event;
  }
}
