/**
 * Reads what `/inbox/dashboard` summarises from one group's projection: open items counted
 * per age edge (the `items_surfaced` index), and the last 30 days of decided items (a range
 * of `items_listing`, where a decided item's sort key is its negated decision time).
 */
import type { Sql } from "../storage/sql";
import {
  AGE_BUCKETS,
  ageBuckets,
  type DecidedRow,
  type InboxStats,
  LONGEST_WINDOW_MS,
  WINDOWS_DAYS,
  windowStats,
} from "../../src/edge/inbox/dashboard/stats";

export function readStats(sql: Sql, now: number): InboxStats {
  const open = sql.one<{ n: number }>`SELECT n FROM counts WHERE status = 'open'`?.n ?? 0;
  const edges = AGE_BUCKETS.filter((b) => Number.isFinite(b.below)).map(
    (b) =>
      sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM items
        WHERE status = 'open' AND surfaced > ${now - b.below}`?.n ?? 0,
  );
  const rows = sql<{
    outcome: string | null;
    channel: string | null;
    decidedBy: string | null;
    decidedAt: number | null;
    surfaced: number;
  }>`SELECT outcome, channel, decided_by, decided_at, surfaced FROM items
      WHERE status = 'decided' AND sort <= ${-(now - LONGEST_WINDOW_MS)}`;
  const decided: DecidedRow[] = rows
    .filter((r) => r.decidedAt !== null)
    .map((r) => ({
      outcome: r.outcome ?? "",
      channel: r.channel ?? "",
      decidedBy: r.decidedBy,
      decidedAt: r.decidedAt as number,
      surfaced: r.surfaced,
    }));
  return {
    open,
    byAge: ageBuckets(edges, open),
    windows: WINDOWS_DAYS.map((days) => windowStats(decided, days, now)),
  };
}
