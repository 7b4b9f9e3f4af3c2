/** A handle as `list` and `inspect` show it: copies, so a caller cannot change the record. */
import type { HandleRecord } from "./handle";
import type { HandleInfo } from "../types";

export function describe(record: HandleRecord): HandleInfo {
  return {
    id: record.id,
    agent: record.agent,
    parent: record.parent,
    depth: record.depth,
    state: record.state,
    turns: record.spent.turns,
    ownUsage: { ...record.spent.usage },
    usage: { ...record.tree.usage },
    toolCalls: record.spent.toolCalls,
    inbox: record.inbox.length,
    children: record.children.slice(),
    budget: { ...record.budget },
    transitions: record.transitions.slice(),
    ...(record.pending ? { pending: record.pending } : {}),
    ...(record.result ? { result: record.result } : {}),
  };
}
