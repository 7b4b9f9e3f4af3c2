/**
 * The shapes of the MCP tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) the
 * client reads: a `tools/call` answered with a task, and a task as `tasks/get` returns it.
 * How a call follows one is ./tasks.
 */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A task as `tasks/get` returns it (a `DetailedTask`). */
export interface McpTaskState {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollIntervalMs?: number;
  ttlMs?: number | null;
  inputRequests?: Record<string, { method?: unknown; params?: unknown }>;
  result?: unknown;
}

/** A `tools/call` answered with a task. */
export interface CreatedTask extends McpTaskState {
  resultType: "task";
}

/** The task in a `tasks/get` reply (or a created task), or undefined. */
export function taskStateOf(raw: unknown): McpTaskState | undefined {
  return isRecord(raw) && typeof raw.taskId === "string" && typeof raw.status === "string"
    ? (raw as unknown as McpTaskState)
    : undefined;
}

export function createdTaskOf(raw: unknown): CreatedTask | undefined {
  return isRecord(raw) && raw.resultType === "task" && taskStateOf(raw)
    ? (raw as unknown as CreatedTask)
    : undefined;
}
