/**
 * The numbers behind `/inbox/dashboard`, per group: what is pending and for how long, how
 * long people take to decide (p50/p90 over 7 and 30 days), who decides, and what ended
 * without a person (expiries, policy auto-decisions). Pure: the `InboxObject` reads the
 * rows (durable/inbox/stats-query.ts), this turns them into the summary.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Age buckets of pending requests, by the time since they surfaced. */
export const AGE_BUCKETS: ReadonlyArray<{ label: string; below: number }> = [
  { label: "under 1 h", below: HOUR },
  { label: "1–4 h", below: 4 * HOUR },
  { label: "4–24 h", below: DAY },
  { label: "1–7 days", below: 7 * DAY },
  { label: "over 7 days", below: Number.POSITIVE_INFINITY },
];

export const WINDOWS_DAYS = [7, 30] as const;
export const LONGEST_WINDOW_MS = 30 * DAY;

/** One decided item as the statistics need it. */
export interface DecidedRow {
  outcome: string;
  channel: string;
  decidedBy: string | null;
  decidedAt: number;
  surfaced: number;
}

export interface WindowStats {
  days: number;
  /** Decided by a person (approved or declined through any channel but policy). */
  decided: number;
  /** Time from surfacing to a person's decision, nearest-rank percentiles; null without any. */
  p50Ms: number | null;
  p90Ms: number | null;
  expired: number;
  /** Decided automatically by a tool's policy (channel `policy`), never shown to a person. */
  policy: number;
  /** Decisions per person, most first. */
  byApprover: Array<{ decidedBy: string; n: number }>;
}

export interface InboxStats {
  open: number;
  /** Open requests per {@link AGE_BUCKETS} entry. */
  byAge: number[];
  windows: WindowStats[];
}

/** Channels where no person decided: they count apart, never in time to decision. */
const NOT_A_PERSON = new Set(["policy", "expiry", "run"]);

export function isPersonDecision(row: DecidedRow): boolean {
  return (
    (row.outcome === "approved" || row.outcome === "declined") &&
    !NOT_A_PERSON.has(row.channel) &&
    row.decidedBy !== null
  );
}

export function windowStats(rows: readonly DecidedRow[], days: number, now: number): WindowStats {
  const since = now - days * DAY;
  const inWindow = rows.filter((r) => r.decidedAt >= since);
  const people = inWindow.filter(isPersonDecision);
  const durations = people.map((r) => Math.max(0, r.decidedAt - r.surfaced)).sort((a, b) => a - b);
  const counts = new Map<string, number>();
  for (const row of people) {
    counts.set(row.decidedBy as string, (counts.get(row.decidedBy as string) ?? 0) + 1);
  }
  return {
    days,
    decided: people.length,
    p50Ms: percentile(durations, 0.5),
    p90Ms: percentile(durations, 0.9),
    expired: inWindow.filter((r) => r.outcome === "expired").length,
    policy: inWindow.filter((r) => r.channel === "policy").length,
    byApprover: [...counts]
      .map(([decidedBy, n]) => ({ decidedBy, n }))
      .sort((a, b) => b.n - a.n || a.decidedBy.localeCompare(b.decidedBy)),
  };
}

/** Nearest-rank percentile of sorted values (p in (0, 1]); null when there are none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) {
    return null;
  }
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? null;
}

/**
 * Open counts per age bucket from cumulative counts: `youngerThan[i]` open items surfaced
 * less than `AGE_BUCKETS[i].below` ago (the finite edges), `open` all of them.
 */
export function ageBuckets(youngerThan: readonly number[], open: number): number[] {
  const cumulative = [...youngerThan, open];
  return cumulative.map((n, i) => n - (i === 0 ? 0 : (cumulative[i - 1] ?? 0)));
}

/** A group nobody wrote to. */
export function emptyStats(): InboxStats {
  return {
    open: 0,
    byAge: AGE_BUCKETS.map(() => 0),
    windows: WINDOWS_DAYS.map((days) => windowStats([], days, 0)),
  };
}
