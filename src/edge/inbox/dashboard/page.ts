/**
 * `/inbox/dashboard`: the picture of the signed-in member's groups — pending per group and
 * by age, time to decision (p50/p90, 7 and 30 days), decisions per approver, expiries and
 * policy auto-decisions. Charts are inline SVG (pages/bar-chart.ts); every number is also in
 * a table, for screen readers and for copying.
 */
import { type Bar, barChart, CHART_STYLE } from "../../pages/bar-chart";
import { esc, layout, time } from "../../pages/layout";
import { AGE_BUCKETS, type InboxStats, WINDOWS_DAYS, type WindowStats } from "./stats";

export interface DashboardView {
  member: string;
  groups: Array<{ group: string; stats: InboxStats }>;
  now: number;
}

const STYLE = `${CHART_STYLE}
nav a{margin-right:1rem}.meta{color:#555;font-size:.9rem}.n{text-align:right}
.scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse;font-size:.9rem}
td,th{text-align:left;padding:.25rem .4rem;border-bottom:1px solid #eee;white-space:nowrap}
.key{display:inline-block;width:.8rem;height:.8rem;vertical-align:middle;margin:0 .25rem 0 .5rem}
.key.p50{background:#2f6db5}.key.p90{background:#c77d1a}
a:focus-visible,summary:focus-visible,.scroll:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
@media (max-width:32rem){body{margin:1rem auto}}`;

export function renderDashboard(view: DashboardView): string {
  const body = `<h1>Approvals dashboard</h1>
<nav><a href="/inbox">Inbox</a><a href="/inbox/dashboard" aria-current="page">Dashboard</a></nav>
<p class="meta">Signed in as <strong id="member">${esc(view.member)}</strong> · as of ${time(view.now, view.now)}</p>
<h2>Pending</h2>
${barChart(
  "pending-groups",
  "Pending requests per group",
  view.groups.map((g) => ({ label: g.group, value: g.stats.open, text: String(g.stats.open) })),
)}
${barChart(
  "pending-age",
  "Pending requests by age (all your groups)",
  AGE_BUCKETS.map((bucket, i) => {
    const n = view.groups.reduce((sum, g) => sum + (g.stats.byAge[i] ?? 0), 0);
    return { label: bucket.label, value: n, text: String(n) };
  }),
)}
<h2>Time to decision</h2>
<p class="meta">From a request surfacing to a person's approval or decline.<span class="key p50"></span>p50 <span class="key p90"></span>p90</p>
${WINDOWS_DAYS.map((days, w) =>
  barChart(
    `decision-time-${days}d`,
    `Time to decision, last ${days} days`,
    view.groups.flatMap((g) => durationBars(g.group, g.stats.windows[w])),
  ),
).join("\n")}
<h2>Decisions per approver</h2>
${barChart("approvers-30d", "Decisions per approver, last 30 days (a request escalated to a second group counts in each)", approverBars(view, 1))}
<h2>Without a person</h2>
${barChart(
  "expired-policy",
  "Expired (blue) and decided by policy (orange), last 30 days",
  view.groups.flatMap((g) => outcomeBars(g.group, g.stats.windows[1])),
)}
<h2>All numbers</h2>
${numbersTable(view)}`;
  return layout("Approvals dashboard", body, STYLE);
}

function durationBars(group: string, window: WindowStats | undefined): Bar[] {
  const p50 = window?.p50Ms ?? null;
  const p90 = window?.p90Ms ?? null;
  return [
    { label: `${group} p50`, value: p50 ?? 0, text: p50 === null ? "none" : duration(p50) },
    {
      label: `${group} p90`,
      value: p90 ?? 0,
      text: p90 === null ? "none" : duration(p90),
      second: true,
    },
  ];
}

function outcomeBars(group: string, window: WindowStats | undefined): Bar[] {
  return [
    { label: `${group} expired`, value: window?.expired ?? 0, text: String(window?.expired ?? 0) },
    {
      label: `${group} policy`,
      value: window?.policy ?? 0,
      text: String(window?.policy ?? 0),
      second: true,
    },
  ];
}

function approverBars(view: DashboardView, windowIndex: number): Bar[] {
  const totals = new Map<string, number>();
  for (const g of view.groups) {
    for (const { decidedBy, n } of g.stats.windows[windowIndex]?.byApprover ?? []) {
      totals.set(decidedBy, (totals.get(decidedBy) ?? 0) + n);
    }
  }
  return [...totals]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 20)
    .map(([who, n]) => ({ label: who, value: n, text: String(n) }));
}

function numbersTable(view: DashboardView): string {
  const cell = (w: WindowStats | undefined, pick: (w: WindowStats) => string) =>
    `<td class="n">${w ? pick(w) : ""}</td>`;
  const rows = view.groups
    .map(({ group, stats }) => {
      const per = WINDOWS_DAYS.map((_, i) => stats.windows[i]);
      return `<tr data-group="${esc(group)}"><th scope="row">${esc(group)}</th><td class="n">${stats.open}</td>${per
        .map(
          (w) =>
            cell(w, (x) => String(x.decided)) +
            cell(w, (x) => (x.p50Ms === null ? "—" : duration(x.p50Ms))) +
            cell(w, (x) => (x.p90Ms === null ? "—" : duration(x.p90Ms))) +
            cell(w, (x) => String(x.expired)) +
            cell(w, (x) => String(x.policy)),
        )
        .join("")}</tr>`;
    })
    .join("\n");
  const heads = WINDOWS_DAYS.map(
    (d) =>
      `<th>Decided ${d} d</th><th>p50 ${d} d</th><th>p90 ${d} d</th><th>Expired ${d} d</th><th>Policy ${d} d</th>`,
  ).join("");
  return `<div class="scroll" role="region" aria-label="All numbers (scrolls sideways)" tabindex="0"><table id="numbers">
<thead><tr><th>Group</th><th>Pending</th>${heads}</tr></thead><tbody>
${rows}
</tbody></table></div>`;
}

/** "45 s", "12 min", "3.5 h", "2.1 d". */
export function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 60) {
    return `${Math.round(s)} s`;
  }
  if (s < 3600) {
    return `${Math.round(s / 60)} min`;
  }
  if (s < 86_400) {
    return `${(s / 3600).toFixed(1)} h`;
  }
  return `${(s / 86_400).toFixed(1)} d`;
}
