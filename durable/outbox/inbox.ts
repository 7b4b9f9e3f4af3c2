/**
 * The thread's side of the approvals inbox: a transactional outbox. Whoever changes a
 * request (surfaced, vote, decided, expired, cancelled, escalated) calls `record` inside
 * the same `transactionSync`, so the change and its outbox row commit together or not
 * at all. `deliver` (run after the commit and by the alarm, until it succeeds) sends
 * the rows to each group's `InboxObject` and deletes them only once acknowledged.
 *
 * Each row holds the item's full state at a version that grows per request, so the
 * inbox can apply deliveries idempotently and out of order. A newer row for the same
 * request and group replaces an undelivered older one: the inbox only needs the latest.
 */
import { heldUntil } from "../undo/window";
import { decodeInboxItem, decodeStrings } from "../storage/decode";
import { askedByOf } from "../../src/edge/agents/asked-by";
import type { Request } from "../../src/core/types";
import {
  groupOfRequest,
  type InboxDecision,
  type InboxEvent,
  type InboxItem,
  type InboxVote,
} from "../../src/edge/inbox/item";
import type { Sql } from "../storage/sql";
import { quorumOf, rulesOf } from "../../src/core/approvers/rules";
import { argsHash } from "../../src/core/approvers/args-hash";
import { currentArgs, type Vote } from "../../src/core/approvers/vote";
import type { VoteStore } from "../storage/vote-store";
import type { DecisionRow, RunRow } from "../storage/run-store";

/** What changed, beyond the request and its run. */
export interface InboxChange {
  event: InboxEvent;
  /** The settled decision (decided, expired, and cancel decisions). */
  decision?: DecisionRow;
  votes?: InboxVote[];
  needed?: number | null;
  /** Escalation: this group may decide too, and sees the request from now on. */
  escalatedTo?: string;
  /** Issue 42: the request expires soon (kept on every later version while open). */
  expiring?: boolean;
}

/** Where the driver reports changes; each hook runs inside its change's transaction. */
export interface InboxHooks {
  surfaced(run: RunRow, request: Request): void;
  settled(run: RunRow, request: Request, decision: DecisionRow): void;
  /** The run ended: requests the inbox still shows open are closed with this reason. */
  ended(runId: string, reason: string): void;
  /** A request closed undecided while its run goes on (a call's other requests, when it ended). */
  withdrawn(requestId: string, reason: string): void;
}

/** The request an inbox item shows, and the run it belongs to. */
export interface InboxSubject {
  run: RunRow;
  request: Request;
}

/**
 * The hooks the thread object gives its driver: each writes the request's inbox row to
 * `outbox` inside the caller's transaction. A request with approver rules shows its votes
 * ("0 of n approvals") from the moment it surfaces.
 */
export function inboxHooks(outbox: InboxOutbox, votes: VoteStore): InboxHooks {
  return {
    surfaced: (run, request) => {
      const rules = rulesOf(request);
      const tally = rules ? { votes: votes.votes(request.id), needed: quorumOf(rules) } : {};
      outbox.record({ run, request }, { event: "surfaced", ...tally }, Date.now());
    },
    settled: (run, request, decision) => {
      const tally = rulesOf(request) ? { votes: votes.votes(request.id) } : {};
      outbox.record(
        { run, request },
        { event: settledEvent(decision), decision, ...tally },
        Date.now(),
      );
    },
    ended: (runId, reason) => outbox.closeRun(runId, reason, Date.now()),
    withdrawn: (requestId, reason) => outbox.closeRequest(requestId, reason, Date.now()),
  };
}

/** The inbox event a settled decision makes. */
export function settledEvent(decision: DecisionRow): "expired" | "cancelled" | "decided" {
  return decision.decision === "expire"
    ? "expired"
    : decision.decision === "cancel"
      ? "cancelled"
      : "decided";
}

export interface OutboxRow {
  seq: number;
  grp: string;
  item: InboxItem;
  attempts: number;
}

const OUTCOME: Record<DecisionRow["decision"], InboxDecision["outcome"]> = {
  approve: "approved",
  decline: "declined",
  cancel: "cancelled",
  expire: "expired",
  revoke: "declined", // an approval revoked in its undo window declines the call
};

export class InboxOutbox {
  /**
   * False once a read found no row and nothing was written since: rows come only from
   * `#write`, and this object is its storage's only writer. A delivery round or an arming
   * then skips the read (issue 46: most rounds of an approval cycle found it empty).
   */
  #maybeRows = true;
  /** Rows written so far, and what the last read returned that is not acknowledged yet. */
  #writes = 0;
  #unacked: { rows: number; writes: number } | undefined;

  constructor(private readonly sql: Sql) {}

  /** Queues the request's new state for each of its groups. Call inside the change's transaction. */
  record({ run, request }: InboxSubject, change: InboxChange, now: number): InboxItem {
    const known = this.sql.one<{
      version: number;
      groups: string;
      surfacedAt: number;
      expiring: number | null;
    }>`
      SELECT version, groups, surfaced_at,
        -- A large item is stored in parts (a reference, not JSON): its badge is not carried.
        CASE WHEN json_valid(item) THEN json_extract(item, '$.expiring') END AS expiring
        FROM inbox_requests WHERE request_id = ${request.id}`;
    const groups = new Set<string>(known ? decodeStrings(known.groups) : [groupOfRequest(request)]);
    if (change.escalatedTo) {
      groups.add(change.escalatedTo);
    }
    const expiring = Boolean(change.expiring || known?.expiring);
    const item = inboxItem(
      { run, request },
      { ...change, expiring },
      {
        version: (known?.version ?? 0) + 1,
        groups: [...groups],
        surfacedAt: known?.surfacedAt ?? now,
        now,
      },
    );
    this.#write(item);
    return item;
  }

  /**
   * A run ended (cancelled, failed, finished) while the inbox still shows some of its
   * requests open: they are closed, so no approver is left looking at a dead request.
   */
  closeRun(runId: string, reason: string, now: number): void {
    const open = this.sql<{ item: string }>`
      SELECT item FROM inbox_requests WHERE run_id = ${runId} AND status = 'open'`;
    for (const row of open) {
      this.#close(decodeInboxItem(row.item), reason, now);
    }
  }

  /** One request closed undecided (its call ended without it), if the inbox shows it open. */
  closeRequest(requestId: string, reason: string, now: number): void {
    const open = this.sql.one<{ item: string }>`
      SELECT item FROM inbox_requests WHERE request_id = ${requestId} AND status = 'open'`;
    if (open) {
      this.#close(decodeInboxItem(open.item), reason, now);
    }
  }

  #close(last: InboxItem, reason: string, now: number): void {
    this.#write({
      ...last,
      status: "decided",
      event: "cancelled",
      decision: {
        outcome: "cancelled",
        decidedBy: null,
        channel: "run",
        decidedAt: new Date(now).toISOString(),
        reason,
      },
      updatedAt: new Date(now).toISOString(),
      version: last.version + 1,
    });
  }

  #write(item: InboxItem): void {
    this.#maybeRows = true;
    this.#writes += 1;
    const body = JSON.stringify(item);
    this
      .sql`INSERT INTO inbox_requests (request_id, run_id, version, status, groups, surfaced_at, item)
      VALUES (${item.requestId}, ${item.runId}, ${item.version}, ${item.status}, ${JSON.stringify(item.groups)}, ${Date.parse(item.surfacedAt)}, ${body})
      ON CONFLICT (request_id) DO UPDATE SET
        version = excluded.version, status = excluded.status, groups = excluded.groups, item = excluded.item`;
    for (const group of item.groups) {
      this.sql`DELETE FROM inbox_outbox WHERE grp = ${group} AND request_id = ${item.requestId}`;
      this.sql`INSERT INTO inbox_outbox (grp, request_id, item, attempts)
        VALUES (${group}, ${item.requestId}, ${body}, 0)`;
    }
  }

  /** Undelivered rows, oldest first. */
  due(limit = 100): OutboxRow[] {
    if (!this.#maybeRows) {
      return [];
    }
    const rows = this.sql<{ seq: number; grp: string; item: string; attempts: number }>`
      SELECT seq, grp, item, attempts FROM inbox_outbox ORDER BY seq LIMIT ${limit}`;
    this.#maybeRows = rows.length > 0;
    // Read whole (under the limit): once all of it is acknowledged, with no write since, the
    // outbox is empty without a read to say so.
    this.#unacked = rows.length < limit ? { rows: rows.length, writes: this.#writes } : undefined;
    return rows.map((r) => ({
      seq: r.seq,
      grp: r.grp,
      item: decodeInboxItem(r.item),
      attempts: r.attempts,
    }));
  }

  /** Acknowledges rows of the last `due` read (deleted: their inbox has them). */
  ack(seqs: readonly number[]): void {
    for (const seq of seqs) {
      this.sql`DELETE FROM inbox_outbox WHERE seq = ${seq}`;
    }
    const read = this.#unacked;
    if (read) {
      read.rows -= seqs.length;
      if (read.rows <= 0 && read.writes === this.#writes) {
        this.#maybeRows = false;
      }
    }
  }

  failed(seqs: readonly number[]): void {
    this.#unacked = undefined; // these rows stay for the retry
    for (const seq of seqs) {
      this.sql`UPDATE inbox_outbox SET attempts = attempts + 1 WHERE seq = ${seq}`;
    }
  }

  /** When the alarm should retry: undefined when nothing waits; backs off with the attempts. */
  retryAt(now: number): number | undefined {
    if (!this.#maybeRows) {
      return undefined;
    }
    const row = this.sql.one<{ attempts: number | null }>`
      SELECT MIN(attempts) AS attempts FROM inbox_outbox`;
    if (row?.attempts === null || row?.attempts === undefined) {
      return undefined;
    }
    return now + Math.min(1000 * 2 ** row.attempts, 300_000);
  }
}

/**
 * Sends due rows to their groups' inboxes and acknowledges what each inbox accepted. A
 * failing group leaves its rows for the next attempt; the others are not held up.
 */
export async function deliverOutbox(
  outbox: InboxOutbox,
  {
    send,
    transaction,
    onFailure = (group, _items, error) =>
      console.error(`inbox ${group}: delivery failed, retried by the alarm`, error),
  }: {
    send: (group: string, items: InboxItem[]) => Promise<void>;
    transaction: <T>(fn: () => T) => T;
    /** A group's delivery failed (it is retried by the alarm): the application's error sink. */
    onFailure?: (group: string, items: InboxItem[], error: unknown) => void;
  },
): Promise<{ delivered: number; failed: number }> {
  const rows = outbox.due();
  const byGroup = new Map<string, OutboxRow[]>();
  for (const row of rows) {
    byGroup.set(row.grp, [...(byGroup.get(row.grp) ?? []), row]);
  }
  let delivered = 0;
  let failedCount = 0;
  for (const [group, batch] of byGroup) {
    const seqs = batch.map((r) => r.seq);
    try {
      await send(
        group,
        batch.map((r) => r.item),
      );
    } catch (error) {
      onFailure(
        group,
        batch.map((r) => r.item),
        error,
      );
      transaction(() => outbox.failed(seqs));
      failedCount += batch.length;
      continue;
    }
    transaction(() => outbox.ack(seqs));
    delivered += batch.length;
  }
  return { delivered, failed: failedCount };
}

/** The item as approvers see it, built from the thread's rows at one version. */
export function inboxItem(
  { run, request }: InboxSubject,
  change: InboxChange,
  at: { version: number; groups: string[]; surfacedAt: number; now: number },
): InboxItem {
  const data = request.data ?? {};
  const votes = (change.votes ?? []) as Vote[];
  const edit = votes.findLast((v) => v.decision === "approve" && v.args !== undefined);
  const requestedBy = run.requestedBy;
  const expiresAt =
    request.expiresAt ??
    (run.expiresAt !== null && run.pending?.id === request.id
      ? new Date(run.expiresAt).toISOString()
      : null);
  return {
    requestId: request.id,
    runId: run.runId,
    threadId: run.threadId,
    agent: run.agent,
    ...(askedByOf(data.path) ? { askedBy: askedByOf(data.path) } : {}),
    input: run.input,
    requestedBy: typeof requestedBy === "string" ? requestedBy : null,
    tool: typeof data.tool === "string" ? data.tool : null,
    // What an approver sees and approves is the latest edit, never the request's first arguments.
    args: edit ? edit.args : (data.args ?? null),
    argsHash: argsHash(currentArgs(request, votes)),
    editedBy: edit ? edit.decidedBy : null,
    metadata: run.metadata,
    prompt: request.prompt,
    kind: request.kind,
    ...(request.kind === "input" && data.schema !== undefined ? { schema: data.schema } : {}),
    expiresAt,
    groups: at.groups,
    status: change.decision ? "decided" : "open",
    event: change.event,
    votes: change.votes ?? [],
    needed: change.needed ?? null,
    editable: rulesOf(request)?.editable ?? false,
    decision: change.decision ? decisionOf(change.decision) : null,
    ...heldOf(change.decision, request),
    surfacedAt: new Date(at.surfacedAt).toISOString(),
    updatedAt: new Date(at.now).toISOString(),
    version: at.version,
    ...(change.expiring && !change.decision ? { expiring: true as const } : {}),
  };
}

/** An approval held in its undo window (rule `delay`): its approvers may still Undo it. */
function heldOf(decision: DecisionRow | undefined, request: Request): { heldUntil?: string } {
  const until = decision ? heldUntil(decision, request) : undefined;
  return until === undefined ? {} : { heldUntil: new Date(until).toISOString() };
}

function decisionOf(row: DecisionRow): InboxDecision {
  const answer = row.answer;
  return {
    outcome: OUTCOME[row.decision],
    decidedBy: row.decidedBy,
    channel: row.channel,
    decidedAt: new Date(row.decidedAt).toISOString(),
    reason: answer.ok ? null : (answer.reason ?? null),
  };
}
