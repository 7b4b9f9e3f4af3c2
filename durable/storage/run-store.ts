/**
 * Typed access to one thread's storage. Every method is synchronous: callers group
 * the writes that belong together with no `await` between them, so they commit
 * atomically.
 */
import type { Answer, Message, Request, RunResult, Usage } from "../../src/core/types";
import { columnOf, type Sql } from "./sql";
import { decodeDecision, decodeRun, encodeRunFields, type RawRow } from "./decode";
import type { DecisionRow, EventRow, RunRow, ToolMessage } from "./records";
import { checkEventValue, checkMessageSize, checkToolCallSize } from "./large/sizes";
import { MAX_VALUE_BYTES } from "./large/values";

export type { DecisionRow, EventRow, RunRow, RunStatus, ToolMessage } from "./records";
export type { Channel };
import type { Channel, StartInput } from "../../src/edge/protocol";

export interface NewRun extends StartInput {
  now: number;
  /** The agent version the run starts under (`runs.agent_version`). */
  agentVersion?: string;
  /** Stored as the thread's first message when the thread is new: the transcript shows what the model saw. */
  systemPrompt?: string;
}

/** Told of each decision as it is inserted, in the same transaction (the receipts: durable/receipts/). */
export type DecisionListener = (row: Omit<DecisionRow, "appliedAt">, request: Request) => void;

export class RunStore {
  /** Set once by the thread's context; every path that decides goes through `insertDecision`. */
  onDecision: DecisionListener | undefined;

  constructor(private readonly sql: Sql) {}

  run(runId: string): RunRow | undefined {
    const row = this.sql.one<RawRow>`SELECT * FROM runs WHERE run_id = ${runId}`;
    return row && decodeRun(row);
  }

  /** The run, which the caller knows exists (it created or just read it): a miss is a bug. */
  requireRun(runId: string): RunRow {
    const run = this.run(runId);
    if (!run) {
      throw new Error(`run ${runId} not found in this thread's storage`);
    }
    return run;
  }

  activeRun(): RunRow | undefined {
    const row = this.sql.one<RawRow>`
      SELECT * FROM runs WHERE status IN ('running', 'pending') ORDER BY created_at LIMIT 1`;
    return row && decodeRun(row);
  }

  /** Every run of the thread, oldest first. */
  runs(): RunRow[] {
    return this.sql<RawRow>`SELECT * FROM runs ORDER BY created_at, rowid`.map(decodeRun);
  }

  /** Who asked for the thread's runs, each identity once (null: an anonymous run). */
  requesters(): Array<string | null> {
    return this.sql<{ requestedBy: string | null }>`SELECT DISTINCT requested_by FROM runs`.map(
      (row) => row.requestedBy,
    );
  }

  /** Runs that may have work: active ones, and cancelled ones whose earlier decision is not applied yet. */
  runsWithWork(): RunRow[] {
    return this.sql<RawRow>`
      SELECT * FROM runs WHERE status IN ('running', 'pending')
         OR (status = 'cancelled' AND pending IS NOT NULL AND EXISTS (
               SELECT 1 FROM decisions d WHERE d.run_id = runs.run_id AND d.applied_at IS NULL))
       ORDER BY created_at`.map(decodeRun);
  }

  insertRun(run: NewRun): void {
    const usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    this
      .sql`INSERT INTO runs (run_id, thread_id, agent, status, input, callback_url, metadata, public_url, usage, created_at, updated_at, requested_by, agent_version)
      VALUES (${run.runId}, ${run.threadId}, ${run.agent}, 'running', ${run.input}, ${run.callbackUrl ?? null},
              ${run.metadata === undefined ? null : JSON.stringify(run.metadata)}, ${run.publicUrl}, ${JSON.stringify(usage)}, ${run.now}, ${run.now},
              ${run.requestedBy ?? null}, ${run.agentVersion ?? null})`;
    // COUNT(*) always yields one row; no row reads as no messages.
    const fresh = (this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM messages`?.n ?? 0) === 0;
    this.appendMessages(run.runId, [
      ...(fresh && run.systemPrompt
        ? [{ role: "system" as const, content: run.systemPrompt }]
        : []),
      { role: "user", content: run.input },
    ]);
  }

  update(runId: string, fields: Partial<Omit<RunRow, "runId">>, now: number): void {
    const entries = Object.entries(encodeRunFields({ ...fields, updatedAt: now }));
    // Column names come from the RunRow type's keys (never from input); values are bound.
    const assignments = entries.map(([key]) => `${columnOf(key)} = ?`).join(", ");
    this.sqlRaw(`UPDATE runs SET ${assignments} WHERE run_id = ?`, [
      ...entries.map(([, v]) => v),
      runId,
    ]);
  }

  /** The thread's transcript (every run's committed messages) plus this run's halted-turn slots. */
  transcript(runId: string): { messages: Message[]; committed: number } {
    const rows = this.sql<{ body: string }>`SELECT body FROM messages ORDER BY seq`;
    const slots = this.slots(runId);
    return {
      messages: [...rows.map((r) => JSON.parse(r.body) as Message), ...slots],
      committed: rows.length,
    };
  }

  /** The thread's committed transcript, without any run's open slots. */
  committedMessages(): Message[] {
    return this.sql<{ body: string }>`SELECT body FROM messages ORDER BY seq`.map(
      (r) => JSON.parse(r.body) as Message,
    );
  }

  runMessages(runId: string): Message[] {
    const rows = this.sql<{
      body: string;
    }>`SELECT body FROM messages WHERE run_id = ${runId} ORDER BY seq`;
    return [...rows.map((r) => JSON.parse(r.body) as Message), ...this.slots(runId)];
  }

  appendMessages(runId: string, messages: Message[]): void {
    for (const message of messages) {
      const body = JSON.stringify(message);
      if (body.length > MAX_VALUE_BYTES / 3) {
        checkMessageSize(message);
      }
      this.sql`INSERT INTO messages (run_id, body) VALUES (${runId}, ${body})`;
    }
  }

  slots(runId: string): ToolMessage[] {
    return this.sql<{
      body: string;
    }>`SELECT body FROM slots WHERE run_id = ${runId} ORDER BY position`.map(
      (r) => JSON.parse(r.body) as ToolMessage,
    );
  }

  /** Writes only the slots that changed: a resolved call's row is replaced, the others stay as they are. */
  putSlots(runId: string, slots: ToolMessage[]): void {
    const stored = new Map(this.slots(runId).map((s) => [s.toolCallId, JSON.stringify(s)]));
    slots.forEach((slot, position) => {
      const body = JSON.stringify(slot);
      if (stored.get(slot.toolCallId) === body) {
        return;
      }
      this
        .sql`INSERT INTO slots (run_id, position, call_id, body) VALUES (${runId}, ${position}, ${slot.toolCallId}, ${body})
        ON CONFLICT (run_id, call_id) DO UPDATE SET body = excluded.body, position = excluded.position`;
    });
  }

  /** One call's result as it completes (replacing that call's earlier row, if any). */
  putSlot(runId: string, position: number, slot: ToolMessage): void {
    this.sql`INSERT INTO slots (run_id, position, call_id, body)
      VALUES (${runId}, ${position}, ${slot.toolCallId}, ${JSON.stringify(slot)})
      ON CONFLICT (run_id, call_id) DO UPDATE SET body = excluded.body, position = excluded.position`;
  }

  clearSlots(runId: string): void {
    this.sql`DELETE FROM slots WHERE run_id = ${runId}`;
  }

  toolCalls(runId: string): RunResult["toolCalls"] {
    return this.sql<{
      body: string;
    }>`SELECT body FROM tool_calls WHERE run_id = ${runId} ORDER BY seq`.map((r) =>
      JSON.parse(r.body),
    );
  }

  /** How many calls the run's log holds, without reading them (the budget walk, durable/agents/budget.ts). */
  toolCallCount(runId: string): number {
    return (
      this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM tool_calls WHERE run_id = ${runId}`
        ?.n ?? 0
    );
  }

  appendToolCalls(runId: string, entries: RunResult["toolCalls"]): void {
    for (const { metadata: _metadata, ...entry } of entries) {
      // The whole output is kept here even when the model was sent less (maxToolOutputBytes), so
      // the 32 MiB limit on one value is checked here too, before the call's row is written.
      checkToolCallSize(entry);
      // A tool's metadata stays in the kernel's RunResult: the run's view shows what it always did.
      this.sql`INSERT INTO tool_calls (run_id, body) VALUES (${runId}, ${JSON.stringify(entry)})`;
    }
  }

  decision(requestId: string): DecisionRow | undefined {
    const row = this.sql.one<RawRow>`SELECT * FROM decisions WHERE request_id = ${requestId}`;
    return row && decodeDecision(row);
  }

  decisions(runId: string): DecisionRow[] {
    return this.sql<RawRow>`
      SELECT * FROM decisions WHERE run_id = ${runId} ORDER BY decided_at, request_id`.map(
      decodeDecision,
    );
  }

  /** `request` is the one decided: whoever listens (the receipts) records what it was. */
  insertDecision(row: Omit<DecisionRow, "appliedAt">, request: Request): void {
    this
      .sql`INSERT INTO decisions (request_id, run_id, decision, answer, channel, decided_by, webhook_id, decided_at, on_behalf_of)
      VALUES (${row.requestId}, ${row.runId}, ${row.decision}, ${JSON.stringify(row.answer)}, ${row.channel}, ${row.decidedBy}, ${row.webhookId}, ${row.decidedAt}, ${row.onBehalfOf ?? null})`;
    this.onDecision?.(row, request);
  }

  /**
   * Replaces a request's decision (a held approval revoked: durable/undo/revoke.ts), in the
   * caller's transaction; the listener records the new one as it does any decision.
   */
  replaceDecision(row: Omit<DecisionRow, "appliedAt">, request: Request): void {
    this.sql`DELETE FROM decisions WHERE request_id = ${row.requestId} AND applied_at IS NULL`;
    this.insertDecision(row, request);
  }

  /** How many receipts the run has, signed or not yet (`receiptCount`: a cut export's tail shows). */
  receiptCount(runId: string): number {
    return (
      this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM receipts WHERE run_id = ${runId}`?.n ??
      0
    );
  }

  /**
   * The agent version an unapplied decision was checked under, and with `answer` what it became
   * when a newer version changed it at apply time (durable/versions/resume-check.ts): who
   * decided stays; the run is given `answer`.
   */
  checkedUnder(requestId: string, version: string, answer: Answer | null = null): void {
    const changed = answer === null ? null : JSON.stringify(answer);
    this.sql`UPDATE decisions SET agent_version = ${version}, answer = COALESCE(${changed}, answer)
      WHERE request_id = ${requestId} AND applied_at IS NULL`;
  }

  markApplied(requestId: string, now: number): void {
    this
      .sql`UPDATE decisions SET applied_at = ${now} WHERE request_id = ${requestId} AND applied_at IS NULL`;
  }

  appendEvent(
    runId: string,
    { type, data }: { type: string; data: unknown },
    now: number,
  ): EventRow {
    const body = JSON.stringify(data);
    if (body.length > MAX_VALUE_BYTES / 3) {
      checkEventValue(type, data); // the log is written first: a value too large stops here
    }
    const row = this.sql.one<{
      id: number;
    }>`INSERT INTO events (run_id, type, data, at) VALUES (${runId}, ${type}, ${body}, ${now}) RETURNING id`;
    if (!row) {
      throw new Error(`INSERT INTO events for run ${runId} returned no id`);
    }
    return { id: row.id, runId, type, data: body, at: now };
  }

  eventsAfter(runId: string, afterId: number): EventRow[] {
    return this.sql<
      EventRow & Record<string, SqlStorageValue>
    >`SELECT * FROM events WHERE run_id = ${runId} AND id > ${afterId} ORDER BY id`;
  }

  private sqlRaw(query: string, values: unknown[]): void {
    const strings = Object.assign(query.split("?"), {
      raw: query.split("?"),
    }) as unknown as TemplateStringsArray;
    this.sql(strings, ...values);
  }
}
