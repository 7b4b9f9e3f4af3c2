/**
 * The sub-agent tree of a run, stored next to it (schema v8). One `agent_handles` row per
 * child handle (`root/coordinator.1/refunds.2`): its state, totals, budget, the request it
 * is suspended on, the results of its halted turn (`slots`, the only part ever replaced),
 * and its recorded result once it settled. `agent_messages` holds each child's transcript,
 * append-only, one row per message, exactly like the run's own `messages`.
 *
 * The run's own agent is the tree's top handle (`root/<agent>.1`); it has no row here: its
 * transcript and totals are the run's.
 */
import type { Message, Request, RunResult, Usage } from "../../src/core/types";
import { columnOf, type Sql } from "./sql";
import { decodeHandle, decodeMessage, type RawRow } from "./decode";
import type { HandleRow } from "./records";

export type { ChildStatus, HandleBudget, HandleRow } from "./records";

/** What spawning a child stores: the fields of its row that never change, and when. */
export type NewHandle = Pick<
  HandleRow,
  "runId" | "handle" | "parent" | "agent" | "depth" | "callId" | "prompt" | "budget"
> & { now: number };

export class HandleStore {
  constructor(private readonly sql: Sql) {}

  handles(runId: string): HandleRow[] {
    return this.sql<RawRow>`
      SELECT * FROM agent_handles WHERE run_id = ${runId} ORDER BY created_at, handle`.map(
      decodeHandle,
    );
  }

  handle(runId: string, handle: string): HandleRow | undefined {
    const row = this.sql.one<RawRow>`
      SELECT * FROM agent_handles WHERE run_id = ${runId} AND handle = ${handle}`;
    return row && decodeHandle(row);
  }

  /** The child a parent's tool call spawned, if it did. */
  byCall(runId: string, parent: string, callId: string): HandleRow | undefined {
    const row = this.sql.one<RawRow>`
      SELECT * FROM agent_handles WHERE run_id = ${runId} AND parent = ${parent} AND call_id = ${callId}`;
    return row && decodeHandle(row);
  }

  insert(row: NewHandle): void {
    this
      .sql`INSERT INTO agent_handles (run_id, handle, parent, agent, depth, call_id, prompt, state,
      status, turns, usage, tool_calls, budget, created_at, updated_at)
      VALUES (${row.runId}, ${row.handle}, ${row.parent}, ${row.agent}, ${row.depth}, ${row.callId},
      ${row.prompt}, 'idle', 'running', 0, ${JSON.stringify(zeroUsage())}, '[]',
      ${JSON.stringify(row.budget)}, ${row.now}, ${row.now})`;
  }

  /** One checkpoint of a handle: its new messages appended, its row brought up to date. */
  checkpoint(
    key: { runId: string; handle: string },
    fresh: Message[],
    fields: Partial<Omit<HandleRow, "runId" | "handle">>,
  ): void {
    for (const message of fresh) {
      this
        .sql`INSERT INTO agent_messages (run_id, handle, body) VALUES (${key.runId}, ${key.handle}, ${JSON.stringify(message)})`;
    }
    this.update(key, fields);
  }

  update(
    key: { runId: string; handle: string },
    fields: Partial<Omit<HandleRow, "runId" | "handle">>,
  ): void {
    for (const column of Object.keys(fields)) {
      // Column names come from the typed keys above, never from input.
      if (!COLUMNS.has(columnOf(column))) {
        throw new Error(`agent_handles has no column ${column}`);
      }
    }
    const current = this.handle(key.runId, key.handle);
    if (!current) {
      throw new Error(`no handle ${key.handle} in run ${key.runId}`);
    }
    const defined = Object.entries(fields).filter(([, value]) => value !== undefined);
    const next = { ...current, ...Object.fromEntries(defined) } as HandleRow;
    const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
    this.sql`UPDATE agent_handles SET state = ${next.state}, status = ${next.status},
      turns = ${next.turns}, usage = ${json(next.usage)}, tool_calls = ${json(next.toolCalls)},
      pending = ${json(next.pending)}, slots = ${json(next.slots)}, text = ${next.text},
      limit_reason = ${next.limitReason}, updated_at = ${next.updatedAt}
      WHERE run_id = ${key.runId} AND handle = ${key.handle}`;
  }

  /** A cancelled run: every open handle is closed, and the requests they waited on go with them. */
  closeAll(runId: string, now: number): void {
    this
      .sql`UPDATE agent_handles SET state = 'closed', status = 'cancelled', pending = NULL, updated_at = ${now}
      WHERE run_id = ${runId} AND state != 'closed'`;
  }

  /** The handle's committed transcript plus its halted turn's results. */
  transcript(runId: string, handle: string): { messages: Message[]; committed: number } {
    const rows = this.sql<{
      body: string;
    }>`SELECT body FROM agent_messages WHERE run_id = ${runId} AND handle = ${handle} ORDER BY seq`;
    const slots = this.handle(runId, handle)?.slots ?? [];
    return {
      messages: [...rows.map((r) => decodeMessage(r.body)), ...slots],
      committed: rows.length,
    };
  }
}

const COLUMNS = new Set([
  "parent",
  "agent",
  "depth",
  "call_id",
  "prompt",
  "state",
  "status",
  "turns",
  "usage",
  "tool_calls",
  "budget",
  "pending",
  "slots",
  "text",
  "limit_reason",
  "created_at",
  "updated_at",
]);

export const zeroUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

export function pendingOfHandle(row: HandleRow): Request | undefined {
  return row.pending ?? undefined;
}

export function storedRunOf(row: HandleRow): Pick<RunResult, "turns" | "usage" | "toolCalls"> {
  return { turns: row.turns, usage: row.usage, toolCalls: row.toolCalls };
}
