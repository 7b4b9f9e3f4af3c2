/**
 * Sub-agents (a run of an agent with a team) as the chat protocols show them. The edge
 * integration that runs children is not built yet; this is the translation it will feed,
 * written against the event shapes the thread object is expected to log:
 *
 * - `subagent_started { handle, name, description?, parentToolCallId? }`
 * - `subagent_finished { handle, status: "done" | "pending" | "failed" | …, requestIds?, text? }`
 *   (`pending`: the child is suspended on the requests `requestIds`)
 * - any other run event (`text`, `tool_call`, `pending`, …) with a `handle` field when a
 *   child produced it; `pending.request` of a child's request carries the same `handle`.
 *
 * A handle is the child's path from the root run (`root/coordinator.1/refunds.2`); it is
 * the AG-UI `subagentRunId`, and its parent is the path without its last segment (`root`
 * itself is the run, not a sub-agent).
 */
import { EventType } from "@ag-ui/core";
import type { LoggedEvent } from "../protocol";

export interface SubagentStarted {
  handle: string;
  name: string;
  description?: string;
  parentToolCallId?: string;
}

export interface SubagentFinished {
  handle: string;
  status: string;
  requestIds?: string[];
  text?: string;
}

/** The handle an event was produced under, if a child produced it. */
export function handleOf(event: LoggedEvent): string | undefined {
  const handle = event.data.handle;
  if (typeof handle === "string" && handle.includes("/")) {
    return handle;
  }
  const request = event.data.request as { handle?: unknown } | undefined;
  return typeof request?.handle === "string" && request.handle.includes("/")
    ? request.handle
    : undefined;
}

/** `root/a.1/b.2` → `root/a.1`; a direct child of the run has no parent sub-agent. */
export function parentHandle(handle: string): string | undefined {
  const parts = handle.split("/");
  return parts.length > 2 ? parts.slice(0, -1).join("/") : undefined;
}

export function readStarted(data: Record<string, unknown>): SubagentStarted | undefined {
  if (typeof data.handle !== "string" || typeof data.name !== "string") {
    return undefined;
  }
  return {
    handle: data.handle,
    name: data.name,
    ...(typeof data.description === "string" ? { description: data.description } : {}),
    ...(typeof data.parentToolCallId === "string"
      ? { parentToolCallId: data.parentToolCallId }
      : {}),
  };
}

export function readFinished(data: Record<string, unknown>): SubagentFinished | undefined {
  if (typeof data.handle !== "string" || typeof data.status !== "string") {
    return undefined;
  }
  const ids = Array.isArray(data.requestIds)
    ? data.requestIds.filter((id): id is string => typeof id === "string")
    : undefined;
  return {
    handle: data.handle,
    status: data.status,
    ...(ids ? { requestIds: ids } : {}),
    ...(typeof data.text === "string" ? { text: data.text } : {}),
  };
}

/** AG-UI 1.0's own events for a child starting and ending (a suspended child: the suspended outcome). */
export function agUiSubagentEvent(event: LoggedEvent): Record<string, unknown>[] {
  if (event.type === "subagent_started") {
    const started = readStarted(event.data);
    if (!started) {
      return [];
    }
    const parent = parentHandle(started.handle);
    return [
      {
        type: EventType.SUBAGENT_STARTED,
        subagentRunId: started.handle,
        name: started.name,
        ...(started.description ? { description: started.description } : {}),
        ...(parent ? { parentSubagentRunId: parent } : {}),
        ...(started.parentToolCallId ? { parentToolCallId: started.parentToolCallId } : {}),
      },
    ];
  }
  if (event.type === "subagent_finished") {
    const finished = readFinished(event.data);
    if (!finished) {
      return [];
    }
    if (finished.status === "failed") {
      return [
        {
          type: EventType.SUBAGENT_ERROR,
          subagentRunId: finished.handle,
          message: finished.text ?? "sub-agent failed",
        },
      ];
    }
    return [
      {
        type: EventType.SUBAGENT_FINISHED,
        subagentRunId: finished.handle,
        outcome:
          finished.status === "pending"
            ? {
                type: "suspended",
                ...(finished.requestIds ? { interruptIds: finished.requestIds } : {}),
              }
            : { type: "success" },
        ...(finished.text === undefined ? {} : { result: finished.text }),
      },
    ];
  }
  return [];
}

/** The UI message stream's data part naming a child (`data-toolnexus-subagent`, updated in place by id). */
export function chatSubagentPart(event: LoggedEvent):
  | {
      type: "data-toolnexus-subagent";
      id: string;
      data: { handle: string; name?: string; status: string; requestIds?: string[] };
    }
  | undefined {
  if (event.type === "subagent_started") {
    const started = readStarted(event.data);
    return started
      ? {
          type: "data-toolnexus-subagent",
          id: `sub-${started.handle}`,
          data: { handle: started.handle, name: started.name, status: "running" },
        }
      : undefined;
  }
  if (event.type === "subagent_finished") {
    const finished = readFinished(event.data);
    return finished
      ? {
          type: "data-toolnexus-subagent",
          id: `sub-${finished.handle}`,
          data: {
            handle: finished.handle,
            status: finished.status,
            ...(finished.requestIds ? { requestIds: finished.requestIds } : {}),
          },
        }
      : undefined;
  }
  return undefined;
}
